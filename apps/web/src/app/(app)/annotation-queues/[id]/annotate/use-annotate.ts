"use client";

import { useMutation } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useShortcuts, type ShortcutMap } from "~/hooks/use-shortcuts";
import { useTRPC } from "~/trpc/react";
import { initialDraft, missingInput, RATING_KEYS, RATING_NAMES, ratingText, submissionOf, type AssignmentView, type ChunkDraft, type Draft, type Rating } from "./draft";

/**
 * The annotate page's state and actions: the leased item, the annotator's
 * draft for it, the chunk in focus, and the four calls (claim the next item,
 * submit, undo the last submission, skip), plus the keyboard map that drives
 * them. The page renders from what this returns and holds no state of its own.
 */
export function useAnnotate(queueId: string) {
  const trpc = useTRPC();
  /** undefined before the first claim answers; null when nothing is left for this annotator. */
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

  const updateChunk = (chunkId: string, change: (entry: ChunkDraft) => Partial<ChunkDraft>) =>
    setDraft((d) => (d ? { ...d, chunks: { ...d.chunks, [chunkId]: { ...d.chunks[chunkId]!, ...change(d.chunks[chunkId]!) } } } : d));
  const pickFirstError = (index: number) => setDraft((d) => (d ? { ...d, firstErrorIndex: index } : d));

  /** Focus another chunk (clamped to the list) and bring it into view. */
  const move = (to: number) => {
    if (!view) return;
    const next = Math.max(0, Math.min(view.chunks.length - 1, to));
    setActive(next);
    setNoteOpen(false);
    document.getElementById(`chunk-${next}`)?.scrollIntoView({ block: "nearest" });
  };

  const actions = {
    activate: setActive,
    rate: (chunkId: string, rating: Rating) => updateChunk(chunkId, () => ({ rating })),
    toggleFlag: (chunkId: string) => updateChunk(chunkId, (entry) => ({ flagged: !entry.flagged })),
    setNote: (chunkId: string, note: string) => updateChunk(chunkId, () => ({ note })),
    pickFirstError,
    noError: () => pickFirstError(-1),
    openNote: () => {
      setNoteOpen(true);
      requestAnimationFrame(() => noteRef.current?.focus());
    },
    closeNote: () => {
      setNoteOpen(false);
      (document.activeElement as HTMLElement | null)?.blur();
    },
    submit: () => {
      if (!view || !draft || busy) return;
      const missing = missingInput(view, draft);
      if (missing) return setProblem(missing);
      setProblem(null);
      submit.mutate(submissionOf(view, draft));
    },
    skip: () => {
      if (view && !busy) skip.mutate({ assignmentId: view.assignmentId });
    },
    undo: () => {
      if (!busy) undo.mutate({ queueId });
    },
    toggleHelp: () => setHelp((h) => !h),
  };

  const scheme = view?.queue.scheme ?? "rating";
  const shortcuts = annotateShortcuts(scheme, {
    activeChunkId: view && draft ? view.chunks[active]?.id : undefined,
    activeIndex: view && draft ? view.chunks[active]?.index : undefined,
    hasItem: Boolean(view && draft),
    next: () => move(active + 1),
    previous: () => move(active - 1),
    rateAndGoOn: (chunkId, rating) => {
      actions.rate(chunkId, rating);
      move(active + 1); // one key per chunk
    },
    actions,
  });
  useShortcuts(shortcuts);

  return {
    view,
    draft,
    scheme,
    active,
    noteOpen,
    noteRef,
    help,
    problem,
    lastSubmitted,
    busy,
    error: claim.error ?? submit.error ?? undo.error ?? skip.error,
    shortcuts,
    actions,
  };
}

type AnnotateActions = ReturnType<typeof useAnnotate>["actions"];

/**
 * Keyboard-first: every action has a key, and the help lists them from this
 * same map. Keys that act on a chunk do nothing until an item is on screen;
 * ? and u work at any time.
 */
function annotateShortcuts(
  scheme: "rating" | "first_error",
  on: {
    activeChunkId: string | undefined;
    activeIndex: number | undefined;
    hasItem: boolean;
    next: () => void;
    previous: () => void;
    rateAndGoOn: (chunkId: string, rating: Rating) => void;
    actions: Pick<AnnotateActions, "toggleFlag" | "openNote" | "submit" | "skip" | "undo" | "toggleHelp" | "pickFirstError" | "noError">;
  },
): ShortcutMap {
  const { actions } = on;
  const onChunk = (act: (chunkId: string, index: number) => void) => () => {
    if (on.activeChunkId !== undefined && on.activeIndex !== undefined) act(on.activeChunkId, on.activeIndex);
  };
  const onItem = (act: () => void) => () => {
    if (on.hasItem) act();
  };
  const labelling: ShortcutMap =
    scheme === "rating"
      ? Object.fromEntries(
          Object.entries(RATING_KEYS).map(([key, rating]) => [
            key,
            { description: `rate the chunk ${ratingText(rating)} (${RATING_NAMES[rating]})`, run: onChunk((chunkId) => on.rateAndGoOn(chunkId, rating)) },
          ]),
        )
      : {
          e: { description: "this chunk is the first error", run: onChunk((_, index) => actions.pickFirstError(index)) },
          "0": { description: "no chunk is wrong", run: onChunk(() => actions.noError()) },
        };
  return {
    ...labelling,
    j: { description: "next / previous chunk", run: onItem(on.next) },
    k: { description: "next / previous chunk", run: onItem(on.previous) },
    ArrowDown: onItem(on.next),
    ArrowUp: onItem(on.previous),
    f: { description: "flag the chunk", run: onChunk((chunkId) => actions.toggleFlag(chunkId)) },
    t: {
      description: "write a note on the chunk (Esc leaves it)",
      run: (event) => {
        if (on.activeChunkId === undefined) return;
        event.preventDefault();
        actions.openNote();
      },
    },
    Enter: {
      description: "submit and take the next solution",
      run: (event) => {
        if (!on.hasItem) return;
        event.preventDefault();
        actions.submit();
      },
    },
    u: { description: "undo the last submission", run: actions.undo },
    s: { description: "skip this solution", run: onItem(actions.skip) },
    "?": { description: "show or hide this help", run: actions.toggleHelp },
  };
}
