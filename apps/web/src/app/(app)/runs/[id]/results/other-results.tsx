"use client";

import Link from "next/link";
import { formatBytes } from "~/lib/format-bytes";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import { exportView, importFacts, segmentView, type ResultsOf } from "./shaping";

type SegmentView = NonNullable<ReturnType<typeof segmentView>>;

/** A segmenter's attempts: the limit, the requests, and the solutions each attempt reconstructed as a bar list. */
function SegmentAttempts({ attempts }: { attempts: NonNullable<SegmentView["attempts"]> }) {
  return (
    <section aria-label="Segmenter attempts" className="space-y-2" data-testid="segment-attempts">
      <h3 className="text-xs font-semibold text-slate-600">Attempts</h3>
      <Facts facts={attempts.facts} label="Attempt counts" />
      <ResultTable
        label="Solutions reconstructed per attempt"
        testId="segment-accepted-at"
        head={["Attempt", "", "Solutions", "Share", "Reconstructed by then"]}
        rows={attempts.rows.map((r) => ({
          key: r.key,
          cells: [
            r.attempt,
            <span key="bar" aria-hidden className="inline-block h-2 w-40 rounded bg-slate-100 align-middle">
              <span className="block h-2 rounded bg-blue-600" style={{ width: `${r.width}%` }} />
            </span>,
            r.solutions,
            r.share,
            r.byThen,
          ],
        }))}
      />
    </section>
  );
}

/** The responses no attempt reconstructed: a link to each solution, its attempts, the last rejection's kind and its error, as text. */
function NeverReconstructed({ view }: { view: SegmentView }) {
  if (view.neverReconstructed.length === 0) return null;
  return (
    <section aria-label="Never reconstructed" className="space-y-2" data-testid="segment-never-reconstructed">
      <h3 className="text-xs font-semibold text-slate-600">Never reconstructed</h3>
      <ResultTable
        label="Responses no attempt reconstructed"
        head={["Solution", "Attempts", "Rejection", "Error"]}
        rows={view.neverReconstructed.map((n) => ({
          key: n.key,
          cells: [
            <Link key="solution" href={n.href} className="font-mono text-blue-700 hover:underline [overflow-wrap:anywhere]">
              {n.externalId}
            </Link>,
            n.attempts,
            <span key="kind" className="font-mono text-xs">
              {n.kind}
            </span>,
            // Plain text: the error quotes the segmenter's answer, whatever it holds.
            <span key="error" className="block max-w-md text-left text-xs whitespace-pre-wrap text-slate-600 [overflow-wrap:anywhere]" data-testid="never-reconstructed-error">
              {n.error}
            </span>,
          ],
        }))}
      />
      {view.moreNeverReconstructed > 0 && <p className="text-xs text-slate-500">…and {view.moreNeverReconstructed.toLocaleString("en-US")} more (the summary lists the first 100).</p>}
    </section>
  );
}

/** A segment run's results: what it segmented, its segmenter's attempts, and chunk statistics per method on the same solutions. */
export function SegmentResults({ result }: { result: ResultsOf<"segment"> }) {
  const view = segmentView(result);
  if (!view) return <UnreadableSummary />;
  return (
    <ResultCard title="Segmentation" testId="results-segment">
      <Facts facts={view.facts} />
      {view.attempts && <SegmentAttempts attempts={view.attempts} />}
      <NeverReconstructed view={view} />
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
