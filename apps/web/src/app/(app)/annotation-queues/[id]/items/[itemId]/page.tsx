"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { ErrorAlert } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { firstErrorText, ratingText } from "../../agreement-panel";

type Rating = -1 | 0 | 1;

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
          <Link href={`/trajectories/${h.item.trajectoryId}`} className="text-blue-700 hover:underline">
            open in the inspector
          </Link>
        </p>
      </div>
      {q.scheme === "first_error" && (
        <p className="text-sm">
          Annotators picked:{" "}
          {submitted.map((a) => (
            <span key={a.id} className="mr-3">
              {a.name}: <span className="font-mono">{firstErrorText(a.firstErrorIndex)}</span>
            </span>
          ))}
        </p>
      )}
      <ol className="space-y-2">
        {h.chunks.map((chunk) => {
          const final = finalOf(chunk.id);
          return (
            <li key={chunk.id} data-testid="adjudicate-chunk" className="grid gap-3 rounded-lg border border-slate-200 bg-white p-3 shadow-sm md:grid-cols-[minmax(0,1fr)_18rem]">
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
                    <div key={a.id} className="flex flex-wrap items-center gap-2">
                      <span className="w-24 truncate text-slate-600">{a.name}</span>
                      <span className="font-mono">{ratingText(label?.rating ?? null)}</span>
                      {label?.flagged && <span className="rounded bg-amber-100 px-1 text-amber-900">flagged</span>}
                      {label?.note && <span className="text-slate-700">“{label.note}”</span>}
                    </div>
                  );
                })}
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
            </li>
          );
        })}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        {q.scheme === "first_error" && (
          <button type="button" aria-pressed={firstError === -1} onClick={() => setFirstError(-1)} className="rounded border border-slate-300 px-3 py-1.5 text-sm">
            Final: no error
          </button>
        )}
        <button type="button" disabled={!complete || adjudicate.isPending} onClick={onAdjudicate} className="rounded bg-blue-600 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
          Set the final label
        </button>
        {!complete && <span className="text-xs text-slate-600">Choose a final label for every chunk.</span>}
      </div>
      {adjudicate.error && <ErrorAlert>{errorMessage(adjudicate.error)}</ErrorAlert>}
      <details className="rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm">
        <summary className="cursor-pointer font-medium text-slate-700">History ({h.labels.length} label rows, append-only)</summary>
        <table className="mt-2 w-full text-xs">
          <thead className="text-left text-slate-600">
            <tr>
              <th className="py-1 pr-3">When</th>
              <th className="py-1 pr-3">Who</th>
              <th className="py-1 pr-3">Chunk</th>
              <th className="py-1 pr-3">Rating</th>
              <th className="py-1 pr-3">Source</th>
              <th className="py-1 pr-3">Note</th>
            </tr>
          </thead>
          <tbody>
            {h.labels.map((l) => (
              <tr key={l.id} data-testid="history-row" className="border-t border-slate-100">
                <td className="py-1 pr-3">{new Date(l.createdAt).toLocaleString()}</td>
                <td className="py-1 pr-3">{l.authorName}</td>
                <td className="py-1 pr-3 font-mono">#{l.chunkIndex}</td>
                <td className="py-1 pr-3 font-mono">{ratingText(l.rating)}</td>
                <td className="py-1 pr-3">{l.source}</td>
                <td className="py-1 pr-3">{l.flagged ? "flagged " : ""}{l.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
