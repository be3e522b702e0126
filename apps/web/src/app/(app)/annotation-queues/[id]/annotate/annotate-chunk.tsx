"use client";

import { forwardRef } from "react";
import { RichText } from "~/components/rich-text";
import { Card, controlClass, cx } from "~/components/ui";
import { RATING_NAMES, type AssignmentView, type ChunkDraft, type Rating } from "./draft";

type Chunk = AssignmentView["chunks"][number];

interface AnnotateChunkProps {
  chunk: Chunk;
  draft: ChunkDraft;
  scheme: "rating" | "first_error";
  /** first_error scheme: where this chunk stands relative to the pick. */
  pick: "first-error" | "before" | "after" | null;
  active: boolean;
  modelHidden: boolean;
  noteOpen: boolean;
  onActivate: () => void;
  onRate: (rating: Rating) => void;
  onPickFirstError: () => void;
  onToggleFlag: () => void;
  onNote: (note: string) => void;
  onNoteDone: () => void;
}

const RATING_STYLE: Record<Rating, string> = {
  [-1]: "border-red-400 bg-red-100 text-red-900",
  0: "border-slate-400 bg-slate-100 text-slate-900",
  1: "border-green-500 bg-green-100 text-green-900",
};

/** One chunk to label: its text, the annotator's rating/flag/note, and the model's view unless blind. */
export const AnnotateChunk = forwardRef<HTMLTextAreaElement, AnnotateChunkProps>(function AnnotateChunk(props, noteRef) {
  const { chunk, draft, active } = props;
  return (
    <Card
      as="li"
      id={`chunk-${chunk.index}`}
      data-testid="annotate-chunk"
      data-active={active ? "true" : undefined}
      data-rating={draft.rating ?? undefined}
      onClick={props.onActivate}
      padding="sm"
      border={active ? "border-blue-500 ring-2 ring-blue-200" : undefined}
      className={cx("grid gap-3 md:grid-cols-[minmax(0,1fr)_auto]", props.pick === "after" && "opacity-60")}
    >
      <div className="min-w-0">
        <div className="mb-1 flex items-center gap-2 text-xs text-slate-500">
          <span className="font-mono">#{chunk.index}</span>
          {draft.flagged && <span className="rounded bg-amber-100 px-1.5 text-amber-900">flagged</span>}
          {props.pick === "first-error" && <span className="rounded bg-red-100 px-1.5 font-medium text-red-800">first error</span>}
        </div>
        <RichText text={chunk.text} className="text-sm" />
        {(props.noteOpen || draft.note) && (
          <textarea
            ref={noteRef}
            aria-label={`Note on chunk ${chunk.index}`}
            value={draft.note}
            maxLength={2000}
            rows={2}
            onChange={(event) => props.onNote(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") {
                event.preventDefault();
                props.onNoteDone();
              }
            }}
            className={controlClass({ inline: true }, "mt-2 w-full text-sm")}
            placeholder="Why? (Esc to leave the note)"
          />
        )}
      </div>
      <div className="flex flex-col gap-2 md:w-64">
        {props.scheme === "rating" ? (
          <div role="group" aria-label={`Rating of chunk ${chunk.index}`} className="flex gap-1">
            {([-1, 0, 1] as const).map((rating, i) => (
              <button
                key={rating}
                type="button"
                aria-pressed={draft.rating === rating}
                onClick={(event) => {
                  event.stopPropagation();
                  props.onRate(rating);
                }}
                className={`flex-1 rounded border px-2 py-1 text-xs ${draft.rating === rating ? RATING_STYLE[rating] : "border-slate-200 text-slate-600 hover:bg-slate-50"}`}
                title={`${RATING_NAMES[rating]} (key ${i + 1})`}
              >
                {rating > 0 ? "+1" : rating} <span className="text-[10px] text-slate-500">[{i + 1}]</span>
              </button>
            ))}
          </div>
        ) : (
          <button
            type="button"
            aria-pressed={props.pick === "first-error"}
            onClick={(event) => {
              event.stopPropagation();
              props.onPickFirstError();
            }}
            className={`rounded border px-2 py-1 text-xs ${props.pick === "first-error" ? RATING_STYLE[-1] : "border-slate-200 text-slate-600 hover:bg-slate-50"}`}
          >
            first error here [e]
          </button>
        )}
        <button
          type="button"
          aria-pressed={draft.flagged}
          onClick={(event) => {
            event.stopPropagation();
            props.onToggleFlag();
          }}
          className={`rounded border px-2 py-1 text-xs ${draft.flagged ? "border-amber-400 bg-amber-50 text-amber-900" : "border-slate-200 text-slate-600 hover:bg-slate-50"}`}
        >
          {draft.flagged ? "flagged" : "flag"} [f]
        </button>
        {!props.modelHidden && <ModelView chunk={chunk} />}
      </div>
    </Card>
  );
});

/** The Monte-Carlo label and the judge's votes, shown when the queue is not blind (or after submitting). */
export function ModelView({ chunk }: { chunk: Chunk }) {
  return (
    <div data-testid="model-view" className="flex flex-wrap items-center gap-1 text-[11px]">
      {chunk.mcLabel && (
        <span className={`rounded px-1 ${chunk.mcLabel === "Positive" ? "bg-green-50 text-green-800" : "bg-red-50 text-red-800"}`}>
          MC {chunk.mcLabel === "Positive" ? "+" : "−"}
          {chunk.qValue !== null && ` (Q ${chunk.qValue.toFixed(2)})`}
        </span>
      )}
      {chunk.judgeVerdict && (
        <span className={`rounded px-1 ${chunk.judgeVerdict === "Positive" ? "bg-green-50 text-green-800" : chunk.judgeVerdict === "Negative" ? "bg-red-50 text-red-800" : "bg-slate-100"}`}>
          judge {chunk.judgeVerdict === "Positive" ? "+" : chunk.judgeVerdict === "Negative" ? "−" : "?"}
          {chunk.judgeVotes && ` (${chunk.judgeVotes.Positive}+ / ${chunk.judgeVotes.Negative}−)`}
        </span>
      )}
    </div>
  );
}
