"use client";

import { formatBytes } from "~/lib/format-bytes";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import { exportView, importFacts, segmentView, type ResultsOf } from "./shaping";

/** A segment run's results: what it segmented, and chunk statistics per method on the same solutions. */
export function SegmentResults({ result }: { result: ResultsOf<"segment"> }) {
  const view = segmentView(result);
  if (!view) return <UnreadableSummary />;
  return (
    <ResultCard title="Segmentation" testId="results-segment">
      <Facts facts={view.facts} />
      <ResultTable
        label="Chunks per method"
        head={["Method", "Solutions", "Chunks", "Chunks per solution", "Characters per chunk", "Tokens per chunk", "One-line chunks"]}
        rows={view.methods.map((m) => ({ key: m.method, cells: [m.method, m.solutions, m.chunks, m.chunksPerSolution, m.charactersPerChunk, m.tokensPerChunk, m.oneLine] }))}
      />
    </ResultCard>
  );
}

/** An import run's results: records read and what they became. */
export function ImportResults({ result }: { result: ResultsOf<"import"> }) {
  const facts = importFacts(result);
  if (facts.length === 0) return <UnreadableSummary />;
  return (
    <ResultCard title="Import" testId="results-import">
      <Facts facts={facts} />
    </ResultCard>
  );
}

/** An export run's results: its files, to download, and what it counted. */
export function ExportResults({ result }: { result: ResultsOf<"export"> }) {
  const view = exportView(result);
  if (!view) return <UnreadableSummary />;
  return (
    <ResultCard title={`Export: ${view.kind}`} testId="results-export">
      <ul className="space-y-1">
        {view.files.map((f) => (
          <li key={f.id}>
            <a href={f.href} className="font-mono text-blue-700 hover:underline" download>
              {f.name}
            </a>{" "}
            <span className="text-xs text-slate-500">{formatBytes(f.size)}</span>
          </li>
        ))}
      </ul>
      {view.facts.length > 0 && <Facts facts={view.facts} />}
    </ResultCard>
  );
}
