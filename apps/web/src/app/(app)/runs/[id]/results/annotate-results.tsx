"use client";

import { HistogramChart } from "../../../datasets/[id]/overview/histogram-chart";
import { LabelBalanceChart } from "../../../datasets/[id]/overview/label-balance-chart";
import { CHART_COLORS } from "~/components/ui";
import { count, percent } from "./format";
import { Facts, ResultCard, ResultTable } from "./result-parts";
import { labelBalanceRows, qValueBars, usageRows, type ResultsOf } from "./shaping";

/**
 * An annotate run's results: labels per rule, the Q-value histogram, and what
 * it spent against the plan. Its label confidence per rule and its failed
 * units are the page's own panels (RunConfidence, RunFailures).
 */
export function AnnotateResults({ result }: { result: ResultsOf<"annotate"> }) {
  const balance = labelBalanceRows(result);
  const bars = qValueBars(result);
  const values = result.qValues.reduce((n, b) => n + b.count, 0);
  const monotonicity = result.summary?.monotonicity;
  return (
    <div className="space-y-4">
      <ResultCard title="Label balance per rule" description="Chunk labels the run stored under each rule and parameter setting" testId="results-label-balance">
        {balance.length === 0 ? (
          <p className="text-slate-500">This run stored no chunk labels.</p>
        ) : (
          <>
            <ResultTable
              label="Labels per rule"
              head={["Rule", "Positive", "Negative", "Negative share"]}
              rows={balance.map((r) => ({ key: r.key, cells: [r.name, r.positive, r.negative, r.negativeShare] }))}
            />
            <LabelBalanceChart rows={result.labelBalance} />
          </>
        )}
      </ResultCard>
      <ResultCard title="Q-value histogram" description={`Q after each chunk (Q₀ of the bare problem left out); ${count(values)} values, Q = 1 in the last bin`} testId="results-q-values">
        {values === 0 ? <p className="text-slate-500">This run stored no Q-values.</p> : <HistogramChart bins={bars} series={[{ key: "chunks", name: "Chunks", color: CHART_COLORS.green }]} xLabel="Q-value" yLabel="chunks" />}
      </ResultCard>
      <ResultCard
        title="Rollouts and tokens against the plan"
        description={
          result.usage.estimate
            ? `The estimate of stepwiser plan annotate for this configuration as of the run's launch (q: ${result.usage.estimate.qSource})`
            : "No estimate for this configuration"
        }
        testId="results-usage"
      >
        <ResultTable label="Used against estimated" head={["", "Used", "Estimated", "Used against the estimate"]} rows={usageRows(result).map((r) => ({ key: r.measure, cells: [r.measure, r.actual, r.estimate, r.difference] }))} />
        {result.usage.estimateError && <p className="text-xs text-slate-500">The plan could not be computed: {result.usage.estimateError}</p>}
        {monotonicity && (
          <Facts
            label="Monotonicity"
            facts={[
              { label: "First-error labels confirmed", value: count(monotonicity.confirmed), note: "the prefixes around the first error were both sampled" },
              { label: "Assumed", value: count(monotonicity.assumed), note: "resting on Q falling monotonically" },
              {
                label: "Seen to fail",
                value: count(monotonicity.violated),
                note: monotonicity.confirmed + monotonicity.assumed + monotonicity.violated > 0 ? percent(monotonicity.violated / (monotonicity.confirmed + monotonicity.assumed + monotonicity.violated)) : undefined,
              },
            ]}
          />
        )}
      </ResultCard>
    </div>
  );
}
