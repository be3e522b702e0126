"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useEffect, useRef, useState } from "react";
import { Card, Field, Input, Select } from "~/components/ui";
import { confidenceRuleOptions, confidenceRuleParams, confidenceRuleValue, parseConfidenceRuleValue, type SolutionView } from "~/lib/solution-filters";

type Dataset = RouterOutputs["dataset"]["get"];
type RunSummary = RouterOutputs["run"]["list"]["runs"][number];

/** A filter picker: the empty value means "no filter". */
function FilterSelect({ label, value, onChange, options }: { label: string; value: string; onChange: (value: string | undefined) => void; options: [string, string][] }) {
  return (
    <Field label={label}>
      <Select value={value} onChange={(e) => onChange(e.target.value || undefined)} options={options} />
    </Field>
  );
}

function runOption(run: RunSummary): [string, string] {
  return [run.id, `${run.label} · ${run.status.replaceAll("_", " ")}`];
}

/** Text typed into the search box reaches the URL after a pause, not on every key. */
function useDebounced(value: string, onSettle: (value: string) => void, delayMs = 300) {
  // The latest callback, so a parent's new closure on each render neither restarts the pause nor goes stale.
  const settle = useRef(onSettle);
  useEffect(() => {
    settle.current = onSettle;
  });
  useEffect(() => {
    const timer = setTimeout(() => settle.current(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
}

export function FilterBar({
  dataset,
  runs,
  labelRules,
  view,
  update,
}: {
  dataset: Dataset;
  runs: RunSummary[];
  /** The chosen annotate run's label rules with stored labels (empty without a run). */
  labelRules: readonly { rule: string; paramsKey: string }[];
  view: SolutionView;
  update: (changes: Record<string, string | undefined>) => void;
}) {
  const [search, setSearch] = useState(view.search ?? "");
  useDebounced(search, (value) => {
    if ((view.search ?? "") !== value.trim()) update({ search: value.trim() || undefined });
  });
  const annotateRuns = runs.filter((r) => r.kind === "annotate");
  const judgeRuns = runs.filter((r) => r.kind === "judge" || r.kind === "benchmark");
  const bool = (value: boolean | undefined) => (value === undefined ? "" : String(value));

  return (
    <Card role="search" aria-label="Filter solutions" padding="sm" className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3 lg:grid-cols-6">
      <Field label="Search problem and solution text" className="col-span-2 sm:col-span-3 lg:col-span-2">
        <Input type="search" value={search} placeholder="words, or a solution id" onChange={(e) => setSearch(e.target.value)} />
      </Field>
      <FilterSelect
        label="Subset"
        value={view.subset ?? ""}
        onChange={(subset) => update({ subset })}
        options={[["", "All"], ...dataset.subsets.flatMap((s): [string, string][] => (s.name === null ? [] : [[s.name, `${s.name} (${s.count})`]]))]}
      />
      <FilterSelect label="Generator" value={view.generator ?? ""} onChange={(generator) => update({ generator })} options={[["", "All"], ...dataset.generators.map((g): [string, string] => [g.name, `${g.name} (${g.count})`])]} />
      <FilterSelect label="Final answer" value={bool(view.correct)} onChange={(correct) => update({ correct })} options={[["", "Any"], ["true", "Correct"], ["false", "Wrong"]]} />
      <FilterSelect label="Source first error" value={bool(view.hasError)} onChange={(hasError) => update({ hasError })} options={[["", "Any"], ["true", "Has an error"], ["false", "Error-free"]]} />
      <FilterSelect label="Annotate run" value={view.annotateRunId ?? ""} onChange={(annotateRunId) => update({ annotateRunId })} options={[["", "None"], ...annotateRuns.map(runOption)]} />
      <Field label="Lowest Q from">
        <Input type="number" min={0} max={1} step={0.05} disabled={!view.annotateRunId} value={view.qMin ?? ""} onChange={(e) => update({ qMin: e.target.value || undefined })} />
      </Field>
      <Field label="Lowest Q to">
        <Input type="number" min={0} max={1} step={0.05} disabled={!view.annotateRunId} value={view.qMax ?? ""} onChange={(e) => update({ qMax: e.target.value || undefined })} />
      </Field>
      <FilterSelect
        label="Confidence rule"
        value={confidenceRuleValue(view.confidenceRule)}
        onChange={(value) => {
          const rule = parseConfidenceRuleValue(value);
          update({ ...confidenceRuleParams(rule), ...(rule ? {} : { maxConfidence: undefined, ...(view.sort === "lowestConfidence" ? { sort: undefined, order: undefined } : {}) }) });
        }}
        options={confidenceRuleOptions(view.annotateRunId ? labelRules : [])}
      />
      <Field label="Lowest confidence at most">
        <Input type="number" min={0} max={1} step={0.05} disabled={!view.confidenceRule} value={view.maxConfidence ?? ""} onChange={(e) => update({ maxConfidence: e.target.value || undefined })} />
      </Field>
      <FilterSelect label="Judge run" value={view.judgeRunId ?? ""} onChange={(judgeRunId) => update({ judgeRunId })} options={[["", "None"], ...judgeRuns.map(runOption)]} />
      <FilterSelect label="Judge verdict" value={view.judgeVerdict ?? ""} onChange={(judgeVerdict) => update({ judgeVerdict })} options={[["", "Any"], ["flagged", "Some chunk Negative"], ["clean", "All chunks Positive"]]} />
      <FilterSelect
        label="Label disagreement"
        value={view.disagreement ?? ""}
        onChange={(disagreement) => update({ disagreement })}
        options={[
          ["", "Any"],
          ["rules", "Label rules disagree"],
          ["judge", "Judge vs. Monte-Carlo first error"],
        ]}
      />
    </Card>
  );
}
