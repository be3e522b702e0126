"use client";

import { Facts, ResultCard, ShareBars, UnreadableSummary } from "./result-parts";
import { chunkResetView, type ResultsOf } from "./shaping";

/** A chunk-reset run's results: accuracy with resets against plain sampling, and the tokens accepted and rejected. */
export function ChunkResetResults({ result }: { result: ResultsOf<"chunk_reset"> }) {
  const view = chunkResetView(result);
  if (!view) return <UnreadableSummary />;
  return (
    <ResultCard title="Chunk reset against plain sampling" description="Each problem solved once with the judge resetting rejected chunks and once without" testId="results-chunk-reset">
      <ShareBars label="Accuracy: chunk reset and baseline" bars={view.bars.map((b, i) => ({ ...b, baseline: i > 0 }))} />
      <Facts facts={view.facts} />
    </ResultCard>
  );
}
