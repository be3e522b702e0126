"use client";

import { Facts, ResultCard, ResultTable, ShareBars, UnreadableSummary } from "./result-parts";
import { bestOfNView, type ResultsOf } from "./shaping";

/** A best-of-N run's results: accuracy of the judge's pick per aggregation, against majority vote, a random pick and the oracle. */
export function BestOfNResults({ result }: { result: ResultsOf<"best_of_n"> }) {
  const view = bestOfNView(result);
  if (!view) return <UnreadableSummary />;
  return (
    <ResultCard title="Best of N" description={`Accuracy of the picked solution over ${view.problems} problems; grey: baselines`} testId="results-best-of-n">
      <ShareBars label="Accuracy per way of picking" bars={view.bars} />
      <ResultTable label="Accuracy against majority vote" head={["Pick", "Accuracy", "Against majority vote"]} rows={view.rows.map((r) => ({ key: r.key, cells: [r.name, r.accuracy, r.againstMajority] }))} />
      <Facts facts={view.facts} />
    </ResultCard>
  );
}
