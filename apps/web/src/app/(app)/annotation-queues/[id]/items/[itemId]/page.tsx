"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { Button, Card, DataTable, dataColumns, ErrorAlert, type DataColumn } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { firstErrorText, ratingText } from "../../agreement-panel";

type Rating = -1 | 0 | 1;
type LabelRow = RouterOutputs["annotationQueue"]["itemHistory"]["labels"][number];

const column = dataColumns<LabelRow>();
const HISTORY_COLUMNS: DataColumn<LabelRow>[] = [
  column.accessor("createdAt", { header: "When", cell: (c) => new Date(c.getValue()).toLocaleString() }),
  column.accessor("authorName", { header: "Who", cell: ({ row: { original: l } }) => <span title={l.authorEmail}>{l.authorName}</span> }),
  column.accessor("chunkIndex", { header: "Chunk", cell: (c) => `#${c.getValue()}`, meta: { className: "font-mono" } }),
  column.accessor("rating", { header: "Rating", cell: (c) => ratingText(c.getValue()), meta: { className: "font-mono" } }),
  column.accessor("source", { header: "Source" }),
  column.display({ id: "note", header: "Note", cell: ({ row: { original: l } }) => `${l.flagged ? "flagged " : ""}${l.note ?? ""}` }),
];

/** Adjudication: every annotator's labels and their history side by side, and the final label an adjudicator sets. */
export default function AdjudicatePage() {
  const { id: queueId, itemId } = useParams<{ id: string; itemId: string }>();
  const isResearcher = useCan("annotationQueues.manage");
  if (!isResearcher) return <ErrorAlert>Adjudication needs the researcher role.</ErrorAlert>;
  return <Adjudication queueId={queueId} itemId={itemId} />;
}

function Adjudication({ queueId, itemId }: { queueId: string; itemId: string }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const queue = useQuery(trpc.annotationQueue.queue.queryOptions({ queueId }));
  const history = useQuery(trpc.annotationQueue.itemHistory.queryOptions({ itemId }));
  const [ratings, setRatings] = useState<Record<string, Rating>>({});
  const [firstError, setFirstError] = useState<number | null>(null);
  const adjudicate = useMutation(
    trpc.annotationQueue.adjudicate.mutationOptions({
      onSuccess: async () => {
        await client.invalidateQueries({ queryKey: trpc.annotationQueue.itemHistory.queryKey({ itemId }) });
        await client.invalidateQueries({ queryKey: trpc.annotationQueue.agreement.queryKey({ queueId }) });
      },
    }),
  );

  const error = queue.error ?? history.error;
  if (error) return <ErrorAlert>{errorMessage(error)}</ErrorAlert>;
  const h = history.data;
  const q = queue.data;
  if (!h || !q) return <p className="text-sm text-slate-500">Loading…</p>;

  const submitted = h.assignments.filter((a) => a.status === "submitted");
  const latest = (authorId: string, chunkId: string) => [...h.labels].reverse().find((l) => l.authorId === authorId && l.chunkId === chunkId && l.source !== "adjudication");
  const finalOf = (chunkId: string) => h.final.find((f) => f.chunkId === chunkId);
  const chosen = (chunkId: string): Rating | null => {
    if (chunkId in ratings) return ratings[chunkId]!;
    const final = finalOf(chunkId);
    return final && (final.status === "adjudicated" || final.status === "agreed") ? ((final.rating ?? null) as Rating | null) : null;
  };
  const onAdjudicate = () => {
    if (q.scheme === "first_error") {
      if (firstError === null) return;
      adjudicate.mutate({ itemId, firstErrorIndex: firstError });
    } else {
      adjudicate.mutate({ itemId, labels: h.chunks.map((c) => ({ chunkId: c.id, rating: chosen(c.id) })) });
    }
  };
  const complete = q.scheme === "first_error" ? firstError !== null : h.chunks.every((c) => chosen(c.id) !== null);

  return (
    <div className="space-y-4">
      <div>
        <Link href={`/annotation-queues/${queueId}`} className="text-sm text-blue-700 hover:underline">
          ← {q.name}
        </Link>
        <h1 className="mt-1 font-mono text-xl font-semibold">{h.item.externalId}</h1>
        <p className="text-sm text-slate-600">
          item {h.item.position + 1} · {submitted.length} submission{submitted.length === 1 ? "" : "s"} ·{" "}
          <span data-testid="adjudication-status">{h.item.adjudicatedAt ? `adjudicated ${new Date(h.item.adjudicatedAt).toLocaleString()}` : "not adjudicated"}</span> ·{" "}
          <Link href={`/solutions/${h.item.solutionId}`} className="text-blue-700 hover:underline">
            open in the inspector
          </Link>
        </p>
      </div>
      {q.scheme === "first_error" && (
        <p className="text-sm">
          Annotators picked:{" "}
          {submitted.map((a) => (
            <span key={a.id} className="mr-3">
              <span title={a.email}>{a.name}</span>: <span className="font-mono">{firstErrorText(a.firstErrorIndex)}</span>
            </span>
          ))}
        </p>
      )}
      <ModelRuns model={h.model} />
      <ol className="space-y-2">
        {h.chunks.map((chunk) => {
          const final = finalOf(chunk.id);
          const model = h.model.chunks.find((c) => c.chunkId === chunk.id);
          return (
            <Card as="li" key={chunk.id} data-testid="adjudicate-chunk" padding="sm" className="grid gap-3 md:grid-cols-[minmax(0,1fr)_24rem]">
              <div className="min-w-0">
                <div className="mb-1 text-xs text-slate-500">
                  <span className="font-mono">#{chunk.index}</span>
                  {final && <span className="ml-2" data-testid="final-status">{final.status}{"rating" in final && final.rating !== undefined ? ` ${ratingText(final.rating)}` : ""}</span>}
                </div>
                <RichText text={chunk.text} className="text-sm" />
              </div>
              <div className="space-y-2 text-xs">
                {submitted.map((a) => {
                  const label = latest(a.annotatorId, chunk.id);
                  return (
                    <div key={a.id} className="flex flex-wrap items-center gap-2" data-testid="annotator-label">
                      <span className="text-slate-700" title={a.email} data-testid="annotator-name">
                        {a.name}
                      </span>
                      <span className="font-mono">{ratingText(label?.rating ?? null)}</span>
                      {label?.flagged && <span className="rounded bg-amber-100 px-1 text-amber-900">flagged</span>}
                      {label?.note && <span className="text-slate-700">“{label.note}”</span>}
                    </div>
                  );
                })}
                {model && <ChunkModel chunk={model} runs={h.model} />}
                {q.scheme === "rating" ? (
                  <div role="group" aria-label={`Final rating of chunk ${chunk.index}`} className="flex gap-1">
                    {([-1, 0, 1] as const).map((rating) => (
                      <button
                        key={rating}
                        type="button"
                        aria-pressed={chosen(chunk.id) === rating}
                        onClick={() => setRatings({ ...ratings, [chunk.id]: rating })}
                        className={`flex-1 rounded border px-2 py-1 ${chosen(chunk.id) === rating ? "border-blue-500 bg-blue-50 font-medium" : "border-slate-200"}`}
                      >
                        {ratingText(rating)}
                      </button>
                    ))}
                  </div>
                ) : (
                  <button type="button" aria-pressed={firstError === chunk.index} onClick={() => setFirstError(chunk.index)} className={`rounded border px-2 py-1 ${firstError === chunk.index ? "border-red-400 bg-red-50" : "border-slate-200"}`}>
                    final first error here
                  </button>
                )}
              </div>
            </Card>
          );
        })}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        {q.scheme === "first_error" && (
          <Button aria-pressed={firstError === -1} onClick={() => setFirstError(-1)}>
            Final: no error
          </Button>
        )}
        <Button variant="primary" disabled={!complete || adjudicate.isPending} onClick={onAdjudicate}>
          Set the final label
        </Button>
        {!complete && <span className="text-xs text-slate-600">Choose a final label for every chunk.</span>}
      </div>
      {adjudicate.error && <ErrorAlert>{errorMessage(adjudicate.error)}</ErrorAlert>}
      <Card as="details" padding="sm" className="text-sm">
        <summary className="cursor-pointer font-medium text-slate-700">History ({h.labels.length} label rows, append-only)</summary>
        <div className="mt-2">
          <DataTable look="compact" data={h.labels} columns={HISTORY_COLUMNS} getRowId={(l) => l.id} rowAttributes={() => ({ "data-testid": "history-row" })} />
        </div>
      </Card>
    </div>
  );
}

type ModelContext = RouterOutputs["annotationQueue"]["itemHistory"]["model"];
type ChunkContext = ModelContext["chunks"][number];

const signOf = (label: string) => (label === "Positive" ? "+" : label === "Negative" ? "−" : "?");
const toneOf = (label: string) => (label === "Positive" ? "bg-green-50 text-green-800" : label === "Negative" ? "bg-red-50 text-red-800" : "bg-slate-100 text-slate-700");

/** Which runs the model context beside each chunk comes from. */
function ModelRuns({ model }: { model: ModelContext }) {
  if (!model.annotateRun && model.judgeRuns.length === 0) return <p className="text-xs text-slate-600">No annotate or judge run to compare with: the queue audits none and the dataset has no finished judge run.</p>;
  return (
    <Card as="section" padding="sm" aria-labelledby="model-runs-heading" className="text-xs text-slate-700" data-testid="model-runs">
      <h2 id="model-runs-heading" className="mb-1 font-medium text-slate-800">
        Beside the human labels
      </h2>
      <ul className="space-y-0.5">
        {model.annotateRun && (
          <li>
            Monte-Carlo labels and Q-values:{" "}
            <Link href={`/runs/${model.annotateRun.id}`} className="text-blue-700 hover:underline">
              {model.annotateRun.name}
            </Link>{" "}
            (the queue&apos;s annotate run; the audited rule first, each label with its confidence)
          </li>
        )}
        {model.judgeRuns.map((run, i) => (
          <li key={run.id} data-testid="model-judge-run">
            Judge {i + 1}:{" "}
            <Link href={`/runs/${run.id}`} className="text-blue-700 hover:underline">
              {run.name}
            </Link>{" "}
            ({run.audited ? "the queue's judge run" : `the latest finished judge run of ${run.endpoint ?? "its endpoint"}`}
            {run.finishedAt ? `, finished ${new Date(run.finishedAt).toLocaleString()}` : ""})
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** The model's view of one chunk: its Monte-Carlo labels with confidence, its Q-value, and each judge run's verdict. */
function ChunkModel({ chunk, runs }: { chunk: ChunkContext; runs: ModelContext }) {
  return (
    <div data-testid="chunk-model" className="space-y-1 border-t border-slate-100 pt-2 text-[11px] text-slate-700">
      {chunk.mcLabels.length > 0 && (
        <div className="flex flex-wrap items-center gap-1" data-testid="chunk-mc">
          {chunk.mcLabels.map((l) => (
            <span key={`${l.rule}-${l.paramsKey}`} className={`rounded px-1 ${toneOf(l.label)} ${l.audited ? "font-semibold" : ""}`} title={l.audited ? "the rule this queue audits" : undefined}>
              MC {l.ruleText} {signOf(l.label)}
              {l.confidence !== null && ` · conf ${l.confidence.toFixed(2)}`}
            </span>
          ))}
        </div>
      )}
      {chunk.q && (
        <div data-testid="chunk-q">
          Q {chunk.q.value.toFixed(2)} ({chunk.q.rollouts > 0 ? `${chunk.q.correct}/${chunk.q.rollouts} rollouts correct` : "no rollouts: the solution's own final answer, graded"})
        </div>
      )}
      {chunk.judges.map((j) => {
        const index = runs.judgeRuns.findIndex((run) => run.id === j.runId);
        const run = runs.judgeRuns[index];
        return (
          <div key={j.runId} data-testid="chunk-judge" className="flex flex-wrap items-center gap-1">
            <span className={`rounded px-1 ${toneOf(j.verdict)}`} title={run?.name}>
              judge {index + 1} {signOf(j.verdict)}
            </span>
            <span className="text-slate-500">
              {j.votes.Positive}+ / {j.votes.Negative}−{j.votes.unparseable ? ` / ${j.votes.unparseable} unreadable` : ""}
            </span>
          </div>
        );
      })}
    </div>
  );
}
