"use client";

import { ButtonLink } from "~/components/ui";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import {
  benchmarkFacts,
  benchmarkIntervalsNote,
  benchmarkRows,
  compareHref,
  PRMBENCH_INTERVALS_NOTE,
  prmbenchClassRows,
  prmbenchCorrectRows,
  prmbenchFacts,
  simulatorExpectationNote,
  type ResultsOf,
} from "./shaping";

/**
 * A benchmark run's ProcessBench scores per subset and on average (labelled partial
 * unless over the four subsets), each with its 95 % bootstrap interval, and a way
 * into Compare with the run chosen. A PRMBench run shows PRMBench's scores instead,
 * per class, the all-correct items apart; its first-error table stays below, closed
 * and named for what it is.
 */
export function BenchmarkResults({ result, runId }: { result: ResultsOf<"benchmark">; runId: string }) {
  const summary = result.summary;
  const compare = result.datasetId && (
    <ButtonLink href={compareHref(result.datasetId, runId)} variant="secondary" size="sm">
      Compare with other runs →
    </ButtonLink>
  );
  if (summary && result.prmbench) {
    return (
      <>
        <PrmbenchResults result={result} />
        <ResultCard
          title="First-error reading (not PRMBench's metric)"
          description="ProcessBench's F1, acc_err and acc_cor computed from each item's first error step, per PRMBench class: a reading of the same run, not the score PRMBench reports."
          testId="results-first-error"
        >
          <details>
            <summary className="cursor-pointer text-slate-600">Show the first-error reading per class</summary>
            <div className="mt-2 space-y-3">
              <Facts facts={benchmarkFacts(result)} />
              <FirstErrorTable result={result} firstColumn="Class" />
            </div>
          </details>
          {compare}
        </ResultCard>
      </>
    );
  }
  return (
    <ResultCard title="ProcessBench scores" description={benchmarkIntervalsNote(result)} testId="results-benchmark">
      {!summary ? (
        <UnreadableSummary />
      ) : (
        <>
          <Facts facts={benchmarkFacts(result)} />
          <FirstErrorTable result={result} firstColumn="Subset" />
          <SimulatorExpectation result={result} />
        </>
      )}
      {compare}
    </ResultCard>
  );
}

/** For a built-in simulated judge: why its figures are what they are, expected beside measured. */
function SimulatorExpectation({ result }: { result: ResultsOf<"benchmark"> }) {
  const note = simulatorExpectationNote(result);
  if (!note) return null;
  return (
    <section className="rounded border border-amber-200 bg-amber-50 p-3 text-sm text-slate-700 dark:border-amber-900 dark:bg-amber-950/40 dark:text-slate-200" data-testid="simulator-expectation">
      <h3 className="font-medium">{note.title}</h3>
      <p className="mt-1">{note.text}</p>
      <div className="mt-2">
        <Facts facts={note.facts} />
      </div>
    </section>
  );
}

function FirstErrorTable({ result, firstColumn }: { result: ResultsOf<"benchmark">; firstColumn: string }) {
  const firstError = firstColumn === "Class";
  return (
    <ResultTable
      label={firstError ? "First-error reading per class" : "Scores per subset"}
      testId="benchmark-subsets"
      head={[firstColumn, "Solutions", "With error", "Without", firstError ? "First-error F1" : "F1", "acc_err (located)", "acc_cor (no error)"]}
      rows={benchmarkRows(result).map((r) => ({ key: r.subset, cells: [r.subset, r.solutions, r.withError, r.withoutError, r.f1, r.accErr, r.accCor] }))}
    />
  );
}

const CLASS_HEAD = ["Class (data)", "PRMBench class", "Dimension", "Items", "PRMScore (95 % CI)", "F1 (95 % CI)", "F1_neg (95 % CI)"] as const;

/** PRMBench's PRMScore, F1 and negative F1 with their intervals, per class, and the all-correct items apart. */
function PrmbenchResults({ result }: { result: ResultsOf<"benchmark"> }) {
  const cells = (r: ReturnType<typeof prmbenchClassRows>[number]) => [
    <code key="c" className="text-xs">
      {r.classification}
    </code>,
    <span key="l" data-testid="prmbench-class-label">
      {r.label}
      {r.note && <span className="block text-xs text-slate-500">{r.note}</span>}
    </span>,
    r.dimension,
    r.n,
    ...[r.prmscore, r.f1, r.negativeF1].map((text, i) => (
      <span key={i} className="whitespace-nowrap">
        {text}
      </span>
    )),
  ];
  const correct = prmbenchCorrectRows(result);
  return (
    <ResultCard title="PRMBench scores" description={PRMBENCH_INTERVALS_NOTE} testId="results-prmbench">
      <Facts facts={prmbenchFacts(result)} label="PRMBench totals" />
      <ResultTable label="PRMBench scores per class" testId="prmbench-classes" head={CLASS_HEAD} rows={prmbenchClassRows(result).map((r) => ({ key: r.key, cells: cells(r) }))} />
      {correct.length > 0 && (
        <div className="space-y-1">
          <h3 className="text-xs font-medium text-slate-600">All-correct items: scored apart, not in the totals</h3>
          <ResultTable label="All-correct items" testId="prmbench-correct" head={CLASS_HEAD} rows={correct.map((r) => ({ key: r.key, cells: cells(r) }))} />
        </div>
      )}
    </ResultCard>
  );
}
