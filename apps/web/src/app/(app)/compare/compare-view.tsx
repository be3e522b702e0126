"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Card, ErrorAlert, Field, Select, StatusBadge, Truncate } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { CalibrationTab } from "./calibration-tab";
import { COMPARE_TABS, useCompareParams, type CompareTab } from "./compare-params";
import { DisagreementsTab } from "./disagreements-tab";
import { firstComparison } from "./first-comparison";
import { MetricsTab } from "./metrics-tab";
import { ScalingTab } from "./scaling-tab";
import { ThreeWayTab } from "./three-way-tab";


const TAB_LABELS: Record<CompareTab, string> = {
  metrics: "Metrics",
  disagreements: "Disagreements",
  scaling: "Scaling",
  calibration: "Calibration",
  "three-way": "Three-way",
};

/** Dataset, runs and baseline pickers, then the chosen tab; every choice is in the URL. */
export function CompareView() {
  const trpc = useTRPC();
  const params = useCompareParams();
  const datasets = useQuery(trpc.dataset.list.queryOptions());
  const candidates = useQuery({ ...trpc.compare.candidates.queryOptions({ datasetId: params.dataset ?? "" }), enabled: Boolean(params.dataset) });

  // Opened with nothing chosen: once, open on the newest comparable pair (a first visitor sees numbers).
  const [openedEmpty] = useState(() => !params.dataset && params.runs.length === 0);
  const recentRuns = useQuery({ ...trpc.run.list.queryOptions({ kinds: ["benchmark", "judge"], pageSize: 200 }), enabled: openedEmpty });
  const preselected = useRef(false);
  useEffect(() => {
    if (preselected.current || !recentRuns.data) return;
    preselected.current = true;
    // Read what was asked for last, not this render: a dataset picked while the runs loaded wins.
    const choice = firstComparison(params.latestChoice(), recentRuns.data.runs);
    if (choice) params.update({ ...choice });
  }, [recentRuns.data, params]);

  const available = candidates.data?.runs ?? [];
  const selected = params.runs.filter((id) => available.some((r) => r.id === id));
  const baseline = selected.includes(params.baseline ?? "") ? params.baseline! : selected[selected.length - 1];

  const toggleRun = (id: string, on: boolean) => {
    const runs = on ? [...selected, id] : selected.filter((r) => r !== id);
    params.update({ runs: runs.join(",") || undefined, baseline: runs.includes(baseline ?? "") ? baseline : runs[runs.length - 1], page: undefined });
  };

  return (
    <div className="space-y-4">
      <Card as="section" aria-label="What to compare" padding="sm" className="grid gap-3 text-sm lg:grid-cols-[16rem_1fr]">
        <Field label="Dataset">
          <Select
            data-testid="compare-dataset"
            value={params.dataset ?? ""}
            onChange={(e) => params.update({ dataset: e.target.value || undefined, runs: undefined, baseline: undefined, a: undefined, b: undefined, judge: undefined, annotate: undefined, queue: undefined, rule: undefined, page: undefined })}
            placeholder="Pick a dataset…"
            options={(datasets.data ?? []).map((d) => [d.id, `${d.name} (${d.solutionCount.toLocaleString()})`] as const)}
          />
        </Field>
        <fieldset className="min-w-0">
          <legend className="text-slate-600">Runs (solution-level predictions) · baseline</legend>
          {!params.dataset && <p className="mt-1 text-slate-500">Pick a dataset to list its benchmark and judge runs.</p>}
          {candidates.error && <ErrorAlert>{errorMessage(candidates.error)}</ErrorAlert>}
          {params.dataset && candidates.data && available.length === 0 && <p className="mt-1 text-slate-500">No benchmark or judge run on this dataset has predictions yet.</p>}
          <ul className="mt-1 max-h-56 space-y-1 overflow-y-auto" data-testid="compare-runs">
            {available.map((run) => {
              const on = selected.includes(run.id);
              return (
                <li key={run.id} className="flex flex-wrap items-center gap-2" data-testid="compare-run-option" data-run-id={run.id}>
                  <label className="flex min-w-0 items-center gap-2">
                    <input type="checkbox" checked={on} onChange={(e) => toggleRun(run.id, e.target.checked)} data-testid="compare-run-checkbox" />
                    <Truncate text={run.label} />
                  </label>
                  <span className="text-xs text-slate-500">{run.solutions.toLocaleString()} solutions</span>
                  <StatusBadge status={run.status} />
                  <label className={`flex items-center gap-1 text-xs ${on ? "text-slate-700" : "invisible"}`}>
                    <input type="radio" name="baseline" checked={baseline === run.id} disabled={!on} onChange={() => params.update({ baseline: run.id })} data-testid="compare-baseline-radio" />
                    baseline
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
      </Card>

      <nav aria-label="Comparison views" className="flex flex-wrap gap-1 border-b border-slate-200 text-sm" role="tablist">
        {COMPARE_TABS.map((tab) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={params.tab === tab}
            data-testid={`compare-tab-${tab}`}
            onClick={() => params.update({ tab })}
            className={`-mb-px rounded-t border px-3 py-1.5 ${params.tab === tab ? "border-slate-200 border-b-white bg-white font-medium" : "border-transparent text-slate-600 hover:text-slate-950"}`}
          >
            {TAB_LABELS[tab]}
          </button>
        ))}
      </nav>

      {params.dataset && candidates.data && (
        <div role="tabpanel" aria-label={TAB_LABELS[params.tab]}>
          {params.tab === "metrics" && <MetricsTab runs={selected} baseline={baseline} candidates={candidates.data} />}
          {params.tab === "disagreements" && <DisagreementsTab runs={selected} baseline={baseline} candidates={candidates.data} params={params} />}
          {params.tab === "scaling" && <ScalingTab runs={selected} candidates={candidates.data} params={params} />}
          {params.tab === "calibration" && <CalibrationTab runs={selected} candidates={candidates.data} params={params} />}
          {params.tab === "three-way" && <ThreeWayTab runs={selected} candidates={candidates.data} params={params} />}
        </div>
      )}
    </div>
  );
}
