import type { LocatedChunk } from "./paragraphs";
import { leadingWhitespaceLength, trailingWhitespaceLength } from "./text-position";

/**
 * Baseline chunkers. Both cut the text at boundaries, trim each piece of its
 * outer whitespace and drop blank pieces, so their chunks follow the same
 * rule as reconstructed ones: trimmed, non-empty, and
 * `text === original.slice(startOffset, endOffset)`.
 */
function chunksBetweenCuts(text: string, cuts: readonly number[]): LocatedChunk[] {
  const chunks: LocatedChunk[] = [];
  const bounds = [0, ...cuts, text.length];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const pieceStart = bounds[i] ?? 0;
    const piece = text.slice(pieceStart, bounds[i + 1]);
    const lead = leadingWhitespaceLength(piece);
    if (lead === piece.length) continue;
    const startOffset = pieceStart + lead;
    const endOffset = pieceStart + piece.length - trailingWhitespaceLength(piece);
    chunks.push({ index: chunks.length, text: text.slice(startOffset, endOffset), startOffset, endOffset });
  }
  return chunks;
}

/**
 * A blank line is a line holding nothing but whitespace, so "\n\n",
 * "\r\n\r\n" and "\n   \n" all separate chunks: any whitespace run with two
 * or more line breaks.
 */
export function segmentByBlankLines(text: string): LocatedChunk[] {
  const cuts: number[] = [];
  for (const run of text.matchAll(/\s+/g)) {
    if (run[0].indexOf("\n") !== run[0].lastIndexOf("\n")) cuts.push(run.index);
  }
  return chunksBetweenCuts(text, cuts);
}

/**
 * A step marker starts a line: optional indentation, an optional Markdown
 * heading ("## "), optional emphasis ("**", "*", "__", "_"), then "Step",
 * a number and a colon, the emphasis closed before or after the colon:
 * "Step 1:", "## Step 2:", "**Step 3:**", "**Step 4**:", "step 5 :".
 * Case is ignored. "Step 2:" in the middle of a line is a reference, not a
 * marker, and does not cut. No two whitespace repetitions stand next to each
 * other, so a long line of spaces cannot make the match backtrack badly.
 */
const STEP_MARKER = /^[^\S\n]*(?:#{1,6}[^\S\n]*)?(?:\*\*|__|\*|_)?step[^\S\n]*\d+(?:\*\*|__|\*|_)?[^\S\n]*:/gim;

/**
 * One chunk per marked step, the marker included. Text before the first
 * marker, if not blank, is a chunk of its own; a text without markers is one
 * chunk.
 */
export function segmentByStepMarkers(text: string): LocatedChunk[] {
  const cuts = [...text.matchAll(STEP_MARKER)].map((marker) => marker.index);
  return chunksBetweenCuts(text, cuts);
}

export const SEGMENTATION_METHOD_IDS = [
  "processbench-paragraphs",
  "blank-line",
  "step-markers",
  "self-segmented",
  "llm-segmenter",
] as const;

export type SegmentationMethodId = (typeof SEGMENTATION_METHOD_IDS)[number];

export interface SegmentationMethod {
  /** Stable: stored with every segmentation, never renamed. */
  id: SegmentationMethodId;
  label: string;
  description: string;
  /** Where the chunk boundaries come from. */
  source: "dataset" | "rule" | "policy" | "segmenter-model";
}

export const SEGMENTATION_METHODS: Readonly<Record<SegmentationMethodId, SegmentationMethod>> = {
  "processbench-paragraphs": {
    id: "processbench-paragraphs",
    label: "ProcessBench paragraphs",
    description: "One chunk per paragraph of a ProcessBench record; the solution text is the paragraphs joined by a blank line.",
    source: "dataset",
  },
  "blank-line": {
    id: "blank-line",
    label: "Blank lines",
    description: "Split on blank lines (\\n\\n), the usual baseline.",
    source: "rule",
  },
  "step-markers": {
    id: "step-markers",
    label: "Step markers",
    description: 'Split before each line that starts with a "Step N:" marker ("## Step 2:", "**Step 3:**"); text before the first marker is its own chunk.',
    source: "rule",
  },
  "self-segmented": {
    id: "self-segmented",
    label: "Self-segmented",
    description: "The policy wrote its reasoning in <chunk> tags itself; the solution is the chunks joined by a blank line.",
    source: "policy",
  },
  "llm-segmenter": {
    id: "llm-segmenter",
    label: "LLM segmenter",
    description: "A segmenter model wrapped an existing solution in <chunk> tags; accepted only if the chunks reproduce the solution exactly.",
    source: "segmenter-model",
  },
};

/** The methods that need nothing but the solution text. */
export const RULE_SEGMENTERS: Readonly<Record<"blank-line" | "step-markers", (text: string) => LocatedChunk[]>> = {
  "blank-line": segmentByBlankLines,
  "step-markers": segmentByStepMarkers,
};

export function isSegmentationMethodId(value: string): value is SegmentationMethodId {
  return (SEGMENTATION_METHOD_IDS as readonly string[]).includes(value);
}
