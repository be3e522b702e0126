"use client";

import { ButtonLink } from "~/components/ui";
import { count, percent } from "./format";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import { benchmarkProtocolFact, benchmarkRows, compareHref, type ResultsOf } from "./shaping";

/** A benchmark run's ProcessBench scores per subset with 95 % intervals, and a way into Compare with the run chosen. */
export function BenchmarkResults({ result, runId }: { result: ResultsOf<"benchmark">; runId: string }) {
  const summary = result.summary;
  return (
    <ResultCard
      title="ProcessBench scores"
      description="Per subset, in %, with 95 % intervals: F1 by percentile bootstrap over the subset's solutions (the run's summary), the accuracies by Wilson score"
      testId="results-benchmark"
    >
      {!summary ? (
        <UnreadableSummary />
      ) : (
        <>
          <Facts
            facts={[
              { label: "Average F1", value: percent(summary.averageF1), note: "unweighted mean over subsets" },
              benchmarkProtocolFact(summary),
              { label: "Unparseable predictions", value: count(summary.unparseable), note: "scored as wrong" },
              { label: "Solutions without a prediction", value: count(summary.missing), note: "scored as wrong" },
            ]}
          />
          <ResultTable
            label="Scores per subset"
            testId="benchmark-subsets"
            head={["Subset", "Solutions", "With error", "Without", "F1", "acc_err (located)", "acc_cor (no error)"]}
            rows={benchmarkRows(result).map((r) => ({ key: r.subset, cells: [r.subset, r.solutions, r.withError, r.withoutError, r.f1, r.accErr, r.accCor] }))}
          />
        </>
      )}
      {result.datasetId && (
        <ButtonLink href={compareHref(result.datasetId, runId)} variant="secondary" size="sm">
          Compare with other runs →
        </ButtonLink>
      )}
    </ResultCard>
  );
}
