"use client";

import Link from "next/link";
import { useParams } from "next/navigation";
import { Button, Card, CardTitle, ErrorAlert, Notice, ShortcutHelp } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { AnnotateChunk } from "./annotate-chunk";
import { chunkPick } from "./draft";
import { LeaseClock } from "./lease-clock";
import { SubmittedReveal } from "./submitted-reveal";
import { useAnnotate } from "./use-annotate";

export default function AnnotatePage() {
  const { id: queueId } = useParams<{ id: string }>();
  const canAnnotate = useCan("annotationQueues.annotate");
  if (!canAnnotate) {
    return <ErrorAlert>Annotating needs the annotator role. Ask an admin for it; you can still read the queue&apos;s progress.</ErrorAlert>;
  }
  return <Annotator queueId={queueId} />;
}

/** Renders the leased item from `useAnnotate`, which holds the state, the calls and the keys. */
function Annotator({ queueId }: { queueId: string }) {
  const { view, draft, scheme, active, noteOpen, noteRef, help, problem, lastSubmitted, busy, error, shortcuts, actions } = useAnnotate(queueId);
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
        <Button variant="subtle" onClick={actions.toggleHelp} className="ml-auto text-xs">
          keyboard shortcuts (?)
        </Button>
      </div>
      {help && <ShortcutHelp shortcuts={shortcuts} />}
      {error && <ErrorAlert>{errorMessage(error)}</ErrorAlert>}
      {problem && <Notice>{problem}</Notice>}
      {lastSubmitted && <SubmittedReveal assignment={lastSubmitted} />}
      {view === null && (
        <Card as="p" data-testid="queue-done" className="text-sm text-slate-700">
          Nothing left for you in this queue: every item has its annotators or you have already labelled it. Press u to reopen your last submission.
        </Card>
      )}
      {view && draft && (
        <>
          {view.queue.instructions && (
            <Card as="details" padding="sm" className="text-sm" open>
              <summary className="cursor-pointer font-medium text-slate-700">Instructions</summary>
              <RichText text={view.queue.instructions} className="mt-2" />
            </Card>
          )}
          <Card as="section" aria-labelledby="problem-heading">
            <CardTitle id="problem-heading" className="mb-2 text-slate-600">
              Problem <span className="font-mono font-normal text-slate-500">{view.solution.externalId}</span>
            </CardTitle>
            <RichText text={view.solution.problemText} className="text-sm" />
            {view.modelHidden && <p className="mt-2 text-xs text-slate-500">Blind queue: the model&apos;s labels and verdicts appear after you submit.</p>}
          </Card>
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
                pick={chunkPick(draft, chunk.index)}
                active={i === active}
                modelHidden={view.modelHidden}
                noteOpen={noteOpen && i === active}
                onActivate={() => actions.activate(i)}
                onRate={(rating) => actions.rate(chunk.id, rating)}
                onPickFirstError={() => actions.pickFirstError(chunk.index)}
                onToggleFlag={() => actions.toggleFlag(chunk.id)}
                onNote={(note) => actions.setNote(chunk.id, note)}
                onNoteDone={actions.closeNote}
              />
            ))}
          </ol>
          <div className="flex flex-wrap gap-2">
            {scheme === "first_error" && <Button onClick={actions.noError}>No error [0]</Button>}
            <Button variant="primary" onClick={actions.submit} disabled={busy}>
              Submit [Enter]
            </Button>
            <Button onClick={actions.skip} disabled={busy}>
              Skip [s]
            </Button>
            <Button onClick={actions.undo} disabled={busy}>
              Undo last submission [u]
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
