import { chunkText, type ChunkLike } from "./chunk-like";
import { parseChunkTags, serializeChunkTags } from "./chunk-tags";
import { chunksFromParagraphs, PARAGRAPH_SEPARATOR, type LocatedChunk } from "./paragraphs";
import { SegmentationError, type ChunkedTextKind } from "./segmentation-error";
import {
  excerptAt,
  isWhitespace,
  leadingWhitespaceLength,
  positionAt,
  trailingWhitespaceLength,
  type TextPosition,
} from "./text-position";

/*
 * The reconstruction rule, stated once:
 *
 * A chunk's *core* is its text without outer whitespace. The cores must occur
 * in the original in order, each character identical (inner spaces, tabs and
 * line breaks included), and what the original holds before the first core,
 * between consecutive cores and after the last core must be whitespace only.
 *
 * So a chunk's own leading/trailing whitespace counts as whitespace *between*
 * chunks: it may differ from the original or be missing. Segmenters write
 * `<chunk>\n…\n</chunk>` for readability, and that newline is formatting, not
 * a change to the solution. Everything else is a changed solution and is
 * rejected, never repaired. Because cores start and end with non-whitespace,
 * each core's place in the original is forced (the first non-whitespace
 * character after the previous core): there is no search and no ambiguity.
 *
 * Located chunks hold the core, so every method yields trimmed chunks and
 * `original.slice(startOffset, endOffset) === text`.
 */

/** Where errors point on the chunked side: into the tagged output when there is one. */
interface ChunkedSide {
  kind: ChunkedTextKind;
  positionOf(chunkIndex: number, offsetInChunk: number): TextPosition;
}

/** Checks chunks against the original solution and locates them in it. Throws `SegmentationError`. */
export function reconstructChunks(original: string, chunks: readonly ChunkLike[]): LocatedChunk[] {
  const texts = chunks.map(chunkText);
  return locate(original, texts, {
    kind: "chunk text",
    positionOf: (chunkIndex, offset) => positionAt(texts[chunkIndex] ?? "", offset),
  });
}

/**
 * Parses a segmenter's tagged output and checks it against the solution it
 * was asked to segment; errors point into both the tagged output and the
 * original.
 */
export function locateTaggedChunks(original: string, tagged: string): LocatedChunk[] {
  const parsed = parseChunkTags(tagged);
  return locate(
    original,
    parsed.map((chunk) => chunk.text),
    {
      kind: "tagged text",
      positionOf: (chunkIndex, offset) => positionAt(tagged, (parsed[chunkIndex]?.contentStart ?? 0) + offset),
    },
  );
}

/**
 * A self-segmenting policy's output has no separate original: the solution
 * text is its chunk cores joined by a blank line (as ProcessBench paragraphs
 * are), so stored offsets do not depend on how the model spaced its tags.
 */
export function solutionFromTaggedOutput(tagged: string, separator = PARAGRAPH_SEPARATOR): { text: string; chunks: LocatedChunk[] } {
  const cores = parseChunkTags(tagged).map((chunk) => {
    const { core } = coreOf(chunk.text);
    if (core === "") throw emptyChunkError(chunk.index, positionAt(tagged, chunk.contentStart), "tagged text");
    return core;
  });
  return chunksFromParagraphs(cores, separator);
}

function coreOf(text: string): { core: string; lead: number } {
  const lead = leadingWhitespaceLength(text);
  if (lead === text.length) return { core: "", lead };
  return { core: text.slice(lead, text.length - trailingWhitespaceLength(text)), lead };
}

function emptyChunkError(chunkIndex: number, at: TextPosition, kind: ChunkedTextKind): SegmentationError {
  return new SegmentationError("empty-chunk", "the chunk holds only whitespace; every chunk must hold a step", {
    chunkIndex,
    chunked: at,
    chunkedText: kind,
  });
}

function skipWhitespace(text: string, from: number): number {
  let offset = from;
  while (offset < text.length && isWhitespace(text.charAt(offset))) offset++;
  return offset;
}

function locate(original: string, chunkTexts: readonly string[], side: ChunkedSide): LocatedChunk[] {
  const located: LocatedChunk[] = [];
  let cursor = 0;
  chunkTexts.forEach((text, index) => {
    const { core, lead } = coreOf(text);
    if (core === "") throw emptyChunkError(index, side.positionOf(index, 0), side.kind);
    const start = skipWhitespace(original, cursor);
    if (!original.startsWith(core, start)) {
      let same = 0;
      while (same < core.length && start + same < original.length && core.charCodeAt(same) === original.charCodeAt(start + same)) same++;
      const originalAt = start + same;
      const chunkAt = lead + same;
      const originalExcerpt = excerptAt(original, originalAt);
      const chunkExcerpt = excerptAt(text, chunkAt);
      throw new SegmentationError(
        "diverges",
        `the chunk differs from the original: the original has ${originalExcerpt} where the chunk has ${chunkExcerpt}`,
        {
          chunkIndex: index,
          chunked: side.positionOf(index, chunkAt),
          chunkedText: side.kind,
          original: positionAt(original, originalAt),
          excerpts: { chunked: chunkExcerpt, original: originalExcerpt },
        },
      );
    }
    located.push({ index, text: core, startOffset: start, endOffset: start + core.length });
    cursor = start + core.length;
  });
  const uncovered = skipWhitespace(original, cursor);
  if (uncovered < original.length) {
    const originalExcerpt = excerptAt(original, uncovered);
    throw new SegmentationError(
      "uncovered-text",
      located.length === 0
        ? `no chunk covers the original, which starts with ${originalExcerpt}`
        : `the original goes on after the last chunk with ${originalExcerpt}, which no chunk covers`,
      { original: positionAt(original, uncovered), excerpts: { original: originalExcerpt } },
    );
  }
  return located;
}

/**
 * The solution with each chunk wrapped in chunk tags where it stands, the text between
 * chunks kept as it is: removing the tags gives `original` back exactly, and
 * `locateTaggedChunks(original, result)` gives the chunks back. The chunks must be in
 * order, exact slices of `original` with only whitespace between them; a chunk that
 * holds a chunk tag itself is refused (see `serializeChunkTags`).
 */
export function tagChunksInText(original: string, chunks: ReadonlyArray<{ text: string; startOffset: number; endOffset: number }>): string {
  let out = "";
  let cursor = 0;
  chunks.forEach((chunk, index) => {
    if (chunk.startOffset < cursor || original.slice(chunk.startOffset, chunk.endOffset) !== chunk.text) {
      throw new RangeError(`chunk ${index} is not the slice [${chunk.startOffset}, ${chunk.endOffset}) of the solution after the chunk before it`);
    }
    const gap = original.slice(cursor, chunk.startOffset);
    if (!isBlankText(gap)) throw new RangeError(`the text before chunk ${index} is not whitespace: ${JSON.stringify(gap.slice(0, 40))}`);
    out += gap + serializeChunkTags([chunk]);
    cursor = chunk.endOffset;
  });
  const tail = original.slice(cursor);
  if (!isBlankText(tail)) throw new RangeError(`the text after the last chunk is not whitespace: ${JSON.stringify(tail.slice(0, 40))}`);
  return out + tail;
}

function isBlankText(text: string): boolean {
  return leadingWhitespaceLength(text) === text.length;
}
