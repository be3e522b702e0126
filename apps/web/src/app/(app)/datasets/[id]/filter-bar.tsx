"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useEffect, useState } from "react";
import type { TrajectoryView } from "~/lib/trajectory-filters";

type Dataset = RouterOutputs["dataset"]["get"];
type RunSummary = RouterOutputs["run"]["list"][number];

const field = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1";

function Select({ label, value, onChange, options }: { label: string; value: string; onChange: (value: string | undefined) => void; options: [string, string][] }) {
  return (
    <label className="min-w-0">
      <span className="block text-slate-600">{label}</span>
      <select className={field} value={value} onChange={(e) => onChange(e.target.value || undefined)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

function runOption(run: RunSummary): [string, string] {
  return [run.id, `${run.kind} · ${run.createdAt.toLocaleString()} · ${run.status.replaceAll("_", " ")}`];
}

/** Text typed into the search box reaches the URL after a pause, not on every key. */
function useDebounced(value: string, onSettle: (value: string) => void, delayMs = 300) {
  useEffect(() => {
    const timer = setTimeout(() => onSettle(value), delayMs);
    return () => clearTimeout(timer);
  }, [value]); // eslint-disable-line react-hooks/exhaustive-deps
}

export function FilterBar({ dataset, runs, view, update }: { dataset: Dataset; runs: RunSummary[]; view: TrajectoryView; update: (changes: Record<string, string | undefined>) => void }) {
  const [search, setSearch] = useState(view.search ?? "");
  useDebounced(search, (value) => {
    if ((view.search ?? "") !== value.trim()) update({ search: value.trim() || undefined });
  });
  const annotateRuns = runs.filter((r) => r.kind === "annotate");
  const judgeRuns = runs.filter((r) => r.kind === "judge" || r.kind === "benchmark");
  const bool = (value: boolean | undefined) => (value === undefined ? "" : String(value));

  return (
    <div role="search" aria-label="Filter solutions" className="grid grid-cols-2 gap-3 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm sm:grid-cols-3 lg:grid-cols-6">
      <label className="col-span-2 min-w-0 sm:col-span-3 lg:col-span-2">
        <span className="block text-slate-600">Search problem and solution text</span>
        <input type="search" className={field} value={search} placeholder="words, or a solution id" onChange={(e) => setSearch(e.target.value)} />
      </label>
      <Select
        label="Subset"
        value={view.subset ?? ""}
        onChange={(subset) => update({ subset })}
        options={[["", "All"], ...dataset.subsets.flatMap((s): [string, string][] => (s.name === null ? [] : [[s.name, `${s.name} (${s.count})`]]))]}
      />
      <Select label="Generator" value={view.generator ?? ""} onChange={(generator) => update({ generator })} options={[["", "All"], ...dataset.generators.map((g): [string, string] => [g.name, `${g.name} (${g.count})`])]} />
      <Select label="Final answer" value={bool(view.correct)} onChange={(correct) => update({ correct })} options={[["", "Any"], ["true", "Correct"], ["false", "Wrong"]]} />
      <Select label="Source first error" value={bool(view.hasError)} onChange={(hasError) => update({ hasError })} options={[["", "Any"], ["true", "Has an error"], ["false", "Error-free"]]} />
      <Select label="Annotate run" value={view.annotateRunId ?? ""} onChange={(annotateRunId) => update({ annotateRunId })} options={[["", "None"], ...annotateRuns.map(runOption)]} />
      <label className="min-w-0">
        <span className="block text-slate-600">Lowest Q from</span>
        <input type="number" min={0} max={1} step={0.05} disabled={!view.annotateRunId} className={`${field} disabled:bg-slate-100`} value={view.qMin ?? ""} onChange={(e) => update({ qMin: e.target.value || undefined })} />
      </label>
      <label className="min-w-0">
        <span className="block text-slate-600">Lowest Q to</span>
        <input type="number" min={0} max={1} step={0.05} disabled={!view.annotateRunId} className={`${field} disabled:bg-slate-100`} value={view.qMax ?? ""} onChange={(e) => update({ qMax: e.target.value || undefined })} />
      </label>
      <Select label="Judge run" value={view.judgeRunId ?? ""} onChange={(judgeRunId) => update({ judgeRunId })} options={[["", "None"], ...judgeRuns.map(runOption)]} />
      <Select label="Judge verdict" value={view.judgeVerdict ?? ""} onChange={(judgeVerdict) => update({ judgeVerdict })} options={[["", "Any"], ["flagged", "Some chunk Negative"], ["clean", "All chunks Positive"]]} />
      <Select
        label="Label disagreement"
        value={view.disagreement ?? ""}
        onChange={(disagreement) => update({ disagreement })}
        options={[
          ["", "Any"],
          ["rules", "Label rules disagree"],
          ["judge", "Judge vs. Monte-Carlo first error"],
        ]}
      />
    </div>
  );
}
