"use client";

import { ButtonLink } from "~/components/ui";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import { benchmarkFacts, benchmarkIntervalsNote, benchmarkRows, compareHref, type ResultsOf } from "./shaping";

/**
 * A benchmark run's ProcessBench scores per subset and on average (labelled partial
 * unless over the four subsets), each with its 95 % bootstrap interval, and a way
 * into Compare with the run chosen.
 */
export function BenchmarkResults({ result, runId }: { result: ResultsOf<"benchmark">; runId: string }) {
  const summary = result.summary;
  return (
    <ResultCard
      title="ProcessBench scores"
      description={benchmarkIntervalsNote(result)}
      testId="results-benchmark"
    >
      {!summary ? (
        <UnreadableSummary />
      ) : (
        <>
          <Facts facts={benchmarkFacts(result)} />
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
