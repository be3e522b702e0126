"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { ErrorAlert } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { AnnotateChunk } from "./annotate-chunk";
import { initialDraft, missingInput, RATING_KEYS, shortcutHelp, type AssignmentView, type Draft } from "./draft";
import { LeaseClock } from "./lease-clock";
import { SubmittedReveal } from "./submitted-reveal";

export default function AnnotatePage() {
  const { id: queueId } = useParams<{ id: string }>();
  const canAnnotate = useCan("annotationQueues.annotate");
  if (!canAnnotate) {
    return <ErrorAlert>Annotating needs the annotator role. Ask an admin for it; you can still read the queue&apos;s progress.</ErrorAlert>;
  }
  return <Annotator queueId={queueId} />;
}

function Annotator({ queueId }: { queueId: string }) {
  const trpc = useTRPC();
  const [view, setView] = useState<AssignmentView | null | undefined>(undefined);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [active, setActive] = useState(0);
  const [noteOpen, setNoteOpen] = useState(false);
  const [help, setHelp] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [lastSubmitted, setLastSubmitted] = useState<AssignmentView | null>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);

  const show = useCallback((next: AssignmentView | null) => {
    setView(next);
    setDraft(next ? initialDraft(next) : null);
    setActive(0);
    setNoteOpen(false);
    setProblem(null);
  }, []);

  const claim = useMutation(trpc.annotationQueue.next.mutationOptions({ onSuccess: show }));
  const submit = useMutation(
    trpc.annotationQueue.submit.mutationOptions({
      onSuccess: ({ assignment }) => {
        setLastSubmitted(assignment);
        claim.mutate({ queueId });
      },
    }),
  );
  const undo = useMutation(
    trpc.annotationQueue.undo.mutationOptions({
      onSuccess: (reopened) => {
        if (!reopened) return setProblem("nothing to undo: you have not submitted anything in this queue");
        setLastSubmitted(null);
        show(reopened);
      },
    }),
  );
  const skip = useMutation(trpc.annotationQueue.skip.mutationOptions({ onSuccess: () => claim.mutate({ queueId }) }));
  const busy = claim.isPending || submit.isPending || undo.isPending || skip.isPending;

  // Claim (or resume) an item once on arrival.
  const claimMutate = claim.mutate;
  useEffect(() => claimMutate({ queueId }), [claimMutate, queueId]);

  const updateChunk = useCallback(
    (chunkId: string, change: Partial<Draft["chunks"][string]>) => setDraft((d) => (d ? { ...d, chunks: { ...d.chunks, [chunkId]: { ...d.chunks[chunkId]!, ...change } } } : d)),
    [],
  );

  const move = useCallback(
    (to: number) => {
      if (!view) return;
      const next = Math.max(0, Math.min(view.chunks.length - 1, to));
      setActive(next);
      setNoteOpen(false);
      document.getElementById(`chunk-${next}`)?.scrollIntoView({ block: "nearest" });
    },
    [view],
  );

  const submitDraft = useCallback(() => {
    if (!view || !draft || busy) return;
    const missing = missingInput(view, draft);
    if (missing) return setProblem(missing);
    setProblem(null);
    submit.mutate({
      assignmentId: view.assignmentId,
      labels: view.chunks.map((chunk) => {
        const entry = draft.chunks[chunk.id]!;
        return { chunkId: chunk.id, rating: view.queue.scheme === "rating" ? entry.rating : null, flagged: entry.flagged, ...(entry.note.trim() ? { note: entry.note.trim() } : {}) };
      }),
      ...(view.queue.scheme === "first_error" ? { firstErrorIndex: draft.firstErrorIndex! } : {}),
    });
  }, [busy, draft, submit, view]);

  // Keyboard-first: every action has a key (see the help), typing in a note is left alone.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
      if (event.key === "?") return setHelp((h) => !h);
      if (event.key === "u") return busy || undo.mutate({ queueId });
      if (!view || !draft) return;
      const chunk = view.chunks[active];
      if (event.key === "j" || event.key === "ArrowDown") return move(active + 1);
      if (event.key === "k" || event.key === "ArrowUp") return move(active - 1);
      if (event.key === "Enter") {
        event.preventDefault();
        return submitDraft();
      }
      if (event.key === "s") return busy || skip.mutate({ assignmentId: view.assignmentId });
      if (!chunk) return;
      if (event.key === "f") return updateChunk(chunk.id, { flagged: !draft.chunks[chunk.id]!.flagged });
      if (event.key === "t") {
        event.preventDefault();
        setNoteOpen(true);
        requestAnimationFrame(() => noteRef.current?.focus());
        return;
      }
      if (view.queue.scheme === "rating" && event.key in RATING_KEYS) {
        updateChunk(chunk.id, { rating: RATING_KEYS[event.key]! });
        return move(active + 1); // rate and go on: one key per chunk
      }
      if (view.queue.scheme === "first_error" && event.key === "e") return setDraft({ ...draft, firstErrorIndex: chunk.index });
      if (view.queue.scheme === "first_error" && event.key === "0") return setDraft({ ...draft, firstErrorIndex: -1 });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [active, busy, draft, move, queueId, skip, submitDraft, undo, updateChunk, view]);

  const error = claim.error ?? submit.error ?? undo.error ?? skip.error;
  const scheme = view?.queue.scheme ?? "rating";
  return (
    <div className="space-y-4" data-testid="annotate-page" data-assignment={view?.assignmentId} data-item={view?.itemId}>
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <Link href={`/annotation-queues/${queueId}`} className="text-sm text-blue-700 hover:underline">
          ← queue
        </Link>
        <h1 className="text-xl font-semibold">{view?.queue.name ?? "Annotate"}</h1>
        {view && (
          <span className="text-sm text-slate-600">
            item {view.position + 1} · <span data-testid="remaining">{view.remainingForMe}</span> left for you · <LeaseClock expiresAt={view.expiresAt} />
          </span>
        )}
        <button type="button" onClick={() => setHelp(!help)} className="ml-auto text-xs text-slate-600 hover:underline">
          keyboard shortcuts (?)
        </button>
      </div>
      {help && (
        <dl role="dialog" aria-label="Keyboard shortcuts" className="grid max-w-md grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded border border-slate-300 bg-white p-3 text-xs shadow">
          {shortcutHelp(scheme).map(([key, what]) => (
            <div key={key} className="contents">
              <dt className="font-mono">{key}</dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      )}
      {error && <ErrorAlert>{errorMessage(error)}</ErrorAlert>}
      {problem && (
        <p role="status" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {problem}
        </p>
      )}
      {lastSubmitted && <SubmittedReveal assignment={lastSubmitted} />}
      {view === null && (
        <p data-testid="queue-done" className="rounded border border-slate-200 bg-white p-4 text-sm text-slate-700">
          Nothing left for you in this queue: every item has its annotators or you have already labelled it. Press u to reopen your last submission.
        </p>
      )}
      {view && draft && (
        <>
          {view.queue.instructions && (
            <details className="rounded border border-slate-200 bg-white p-3 text-sm" open>
              <summary className="cursor-pointer font-medium text-slate-700">Instructions</summary>
              <RichText text={view.queue.instructions} className="mt-2" />
            </details>
          )}
          <section aria-labelledby="problem-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
            <h2 id="problem-heading" className="mb-2 text-sm font-semibold text-slate-600">
              Problem <span className="font-mono font-normal text-slate-500">{view.trajectory.externalId}</span>
            </h2>
            <RichText text={view.trajectory.problemText} className="text-sm" />
            {view.modelHidden && <p className="mt-2 text-xs text-slate-500">Blind queue: the model&apos;s labels and verdicts appear after you submit.</p>}
          </section>
          {scheme === "first_error" && (
            <p data-testid="first-error-pick" className="text-sm text-slate-700">
              First error: {draft.firstErrorIndex === null ? "not picked yet" : draft.firstErrorIndex === -1 ? "none — every chunk is right" : `chunk ${draft.firstErrorIndex}`}
            </p>
          )}
          <ol className="space-y-2">
            {view.chunks.map((chunk, i) => (
              <AnnotateChunk
                key={chunk.id}
                ref={i === active ? noteRef : undefined}
                chunk={chunk}
                draft={draft.chunks[chunk.id]!}
                scheme={scheme}
                pick={draft.firstErrorIndex === null || draft.firstErrorIndex === -1 ? (draft.firstErrorIndex === -1 ? "before" : null) : chunk.index === draft.firstErrorIndex ? "first-error" : chunk.index < draft.firstErrorIndex ? "before" : "after"}
                active={i === active}
                modelHidden={view.modelHidden}
                noteOpen={noteOpen && i === active}
                onActivate={() => setActive(i)}
                onRate={(rating) => updateChunk(chunk.id, { rating })}
                onPickFirstError={() => setDraft({ ...draft, firstErrorIndex: chunk.index })}
                onToggleFlag={() => updateChunk(chunk.id, { flagged: !draft.chunks[chunk.id]!.flagged })}
                onNote={(note) => updateChunk(chunk.id, { note })}
                onNoteDone={() => {
                  setNoteOpen(false);
                  (document.activeElement as HTMLElement | null)?.blur();
                }}
              />
            ))}
          </ol>
          <div className="flex flex-wrap gap-2">
            {scheme === "first_error" && (
              <button type="button" onClick={() => setDraft({ ...draft, firstErrorIndex: -1 })} className="rounded border border-slate-300 px-3 py-1.5 text-sm">
                No error [0]
              </button>
            )}
            <button type="button" onClick={submitDraft} disabled={busy} className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
              Submit [Enter]
            </button>
            <button type="button" onClick={() => skip.mutate({ assignmentId: view.assignmentId })} disabled={busy} className="rounded border border-slate-300 px-3 py-1.5 text-sm">
              Skip [s]
            </button>
            <button type="button" onClick={() => undo.mutate({ queueId })} disabled={busy} className="rounded border border-slate-300 px-3 py-1.5 text-sm">
              Undo last submission [u]
            </button>
          </div>
        </>
      )}
    </div>
  );
}
