"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { Card, ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { Hint, runLabel, type Candidates } from "./shared";
import { intervalText, pct, pValueText, signedPct, significance } from "./format";

type Comparison = RouterOutputs["compare"]["checkpoints"];
type RunScores = Comparison["runs"][number];
const METRICS = [
  ["f1", "F1"],
  ["acc_err", "acc_err"],
  ["acc_cor", "acc_cor"],
] as const;
type Metric = (typeof METRICS)[number][0];

const TONE = { better: "bg-green-50 text-green-800", worse: "bg-red-50 text-red-800", none: "text-slate-700" } as const;

/**
 * Per subset and on average: each run's F1, acc_err and acc_cor with 95 %
 * bootstrap intervals, and each run's paired difference from the baseline.
 * A difference is coloured only when its interval excludes 0.
 */
export function MetricsTab({ runs, baseline, candidates }: { runs: string[]; baseline: string | undefined; candidates: Candidates }) {
  const trpc = useTRPC();
  const enough = runs.length >= 2 && baseline !== undefined;
  const result = useQuery({ ...trpc.compare.checkpoints.queryOptions({ runIds: runs, baselineRunId: baseline ?? "" }), enabled: enough, staleTime: 5 * 60_000 });
  if (!enough) return <Hint>Pick two to eight runs and a baseline above.</Hint>;
  if (result.error) return <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>;
  if (!result.data) return <Hint>Scoring and bootstrapping ({runs.length} runs)…</Hint>;
  const data = result.data;
  const groups: Array<[string, (r: RunScores) => RunScores["average"], (r: RunScores) => NonNullable<RunScores["delta"]>["average"] | null]> = [
    ...data.subsets.map((s): (typeof groups)[number] => [s, (r) => r.bySubset[s]!, (r) => r.delta?.bySubset[s] ?? null]),
    ["average", (r) => r.average, (r) => r.delta?.average ?? null],
  ];
  return (
    <div className="space-y-2">
      <p className="text-xs text-slate-500" data-testid="metrics-summary">
        {data.gold.toLocaleString()} gold solutions shared by every run · {Math.round(data.confidence * 100)} % percentile-bootstrap intervals over solutions ({data.resamples.toLocaleString()} resamples, seed {data.seed}) · differences are paired (same resampled solutions for both runs) · the average is the unweighted mean over subsets. Scores in %.
      </p>
      {/* Not a DataTable: each subset's name spans its runs' rows. */}
      <Card padding="none" className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="metrics-table">
          <thead className="bg-slate-50 text-left text-xs text-slate-600">
            <tr>
              <th className="px-3 py-2">Subset</th>
              <th className="px-3 py-2">Run</th>
              <th className="px-3 py-2 text-right">n</th>
              {METRICS.map(([key, name]) => (
                <th key={key} className="px-3 py-2">
                  {name} (95 % CI)
                </th>
              ))}
              {METRICS.map(([key, name]) => (
                <th key={`d-${key}`} className="px-3 py-2">
                  Δ {name} vs baseline
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {groups.map(([subset, scoreOf, deltaOf]) =>
              data.runs.map((row, i) => {
                const score = scoreOf(row);
                const delta = deltaOf(row);
                return (
                  <tr key={`${subset}-${row.id}`} className={`border-t border-slate-100 ${i === 0 ? "border-t-slate-300" : ""}`} data-testid="metrics-row" data-subset={subset} data-run={row.id}>
                    {i === 0 && (
                      <th rowSpan={data.runs.length} scope="rowgroup" className="px-3 py-2 text-left align-top font-medium">
                        {subset}
                      </th>
                    )}
                    <td className="max-w-72 truncate px-3 py-2" title={row.run.label}>
                      {row.isBaseline && <span className="mr-1 rounded bg-slate-200 px-1 text-xs">baseline</span>}
                      {runLabel(candidates, row.id)}
                    </td>
                    <td className="px-3 py-2 text-right tabular-nums">{score.n.toLocaleString()}</td>
                    {METRICS.map(([metric]) => (
                      <MetricCell key={metric} run={row.id} subset={subset} metric={metric} value={score[metric]} ci={score.ci[metric]} />
                    ))}
                    {METRICS.map(([metric]) =>
                      delta ? (
                        <DeltaCell key={metric} run={row.id} subset={subset} metric={metric} delta={delta[metric]} resamples={data.resamples} />
                      ) : (
                        <td key={metric} className="px-3 py-2 text-slate-400">
                          —
                        </td>
                      ),
                    )}
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      </Card>
      {data.runs.some((r) => r.missing > 0) && (
        <p className="text-xs text-amber-700">Some runs lack predictions for solutions in every run's scope; those count as wrong: {data.runs.filter((r) => r.missing > 0).map((r) => `${runLabel(candidates, r.id)} (${r.missing})`).join(", ")}.</p>
      )}
    </div>
  );
}

function MetricCell({ run, subset, metric, value, ci }: { run: string; subset: string; metric: Metric; value: number; ci: { lower: number; upper: number } }) {
  return (
    <td className="px-3 py-2 whitespace-nowrap tabular-nums" data-testid="metric-cell" data-run={run} data-subset={subset} data-metric={metric} data-value={value}>
      <span data-testid="metric-value" className="font-medium">
        {pct(value)}
      </span>{" "}
      <span data-testid="metric-ci" className="text-xs text-slate-500">
        {intervalText(ci.lower, ci.upper)}
      </span>
    </td>
  );
}

function DeltaCell({ run, subset, metric, delta, resamples }: { run: string; subset: string; metric: Metric; delta: { estimate: number; lower: number; upper: number; pValue: number }; resamples: number }) {
  const sign = significance(delta.lower, delta.upper);
  return (
    <td
      className={`px-3 py-2 whitespace-nowrap tabular-nums ${TONE[sign]}`}
      data-testid="delta-cell"
      data-run={run}
      data-subset={subset}
      data-metric={metric}
      data-value={delta.estimate}
      data-significance={sign}
      title={sign === "none" ? "the interval includes 0" : `the interval excludes 0: ${sign} than the baseline`}
    >
      <span data-testid="delta-value" className="font-medium">
        {signedPct(delta.estimate)}
      </span>{" "}
      <span data-testid="delta-ci" className="text-xs">
        {intervalText(delta.lower, delta.upper, true)}
      </span>{" "}
      <span data-testid="delta-p" className="text-xs opacity-80">
        {pValueText(delta.pValue, resamples)}
      </span>
    </td>
  );
}
