import { chunkText, type ChunkLike } from "./chunk-like";

/** Counts the tokens of a text; inject the policy's real tokenizer when it matters. */
export type TokenCounter = (text: string) => number;

/**
 * Approximate token count, good enough to compare segmentation methods with
 * each other but not model budgets: word pieces split at whitespace and
 * punctuation. A run of letters is one token, a run of digits is one token
 * per three digits (as Llama-3-style tokenizers group them), and every other
 * non-space symbol (punctuation, LaTeX backslashes, braces, operators) is a
 * token of its own. Real BPE tokenizers split long or rare words further, so
 * this tends to undercount prose and is close for formula-heavy text.
 */
export function approximateTokenCount(text: string): number {
  let count = 0;
  for (const piece of text.matchAll(/[\p{L}\p{M}]+|\p{N}+|[^\s\p{L}\p{M}\p{N}]/gu)) {
    count += /^\p{N}/u.test(piece[0]) ? Math.ceil([...piece[0]].length / 3) : 1;
  }
  return count;
}

/** `null` where there is nothing to summarise (no solutions or no chunks). */
export interface Summary {
  mean: number | null;
  median: number | null;
  min: number | null;
  max: number | null;
}

export interface SegmentationStats {
  solutions: number;
  chunks: number;
  chunksPerSolution: Summary;
  /** Unicode code points of the trimmed chunk, so "é" or "∑" counts once. */
  charactersPerChunk: Summary;
  tokensPerChunk: Summary;
  /** Share (0..1) of chunks whose trimmed text has no line break; `null` without chunks. */
  oneLineChunkShare: number | null;
}

export interface SegmentationStatsOptions {
  countTokens?: TokenCounter;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { mean: null, median: null, min: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return {
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    median,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}

/**
 * Statistics of one segmentation method over many solutions (each solution
 * given as its chunks). Chunk texts are measured trimmed, so raw tag contents
 * with formatting newlines count the same as located chunks.
 */
export function segmentationStats(
  solutions: readonly (readonly ChunkLike[])[],
  { countTokens = approximateTokenCount }: SegmentationStatsOptions = {},
): SegmentationStats {
  const characters: number[] = [];
  const tokens: number[] = [];
  let oneLine = 0;
  for (const chunks of solutions) {
    for (const chunk of chunks) {
      const text = chunkText(chunk).trim();
      characters.push([...text].length);
      tokens.push(countTokens(text));
      if (!text.includes("\n")) oneLine++;
    }
  }
  return {
    solutions: solutions.length,
    chunks: characters.length,
    chunksPerSolution: summarize(solutions.map((chunks) => chunks.length)),
    charactersPerChunk: summarize(characters),
    tokensPerChunk: summarize(tokens),
    oneLineChunkShare: characters.length === 0 ? null : oneLine / characters.length,
  };
}

/** One row per method, in the order given, for a side-by-side table. */
export function segmentationStatsByMethod<Method extends string>(
  solutionsByMethod: Readonly<Partial<Record<Method, readonly (readonly ChunkLike[])[]>>>,
  options: SegmentationStatsOptions = {},
): Array<{ method: Method } & SegmentationStats> {
  return (Object.entries(solutionsByMethod) as Array<[Method, readonly (readonly ChunkLike[])[] | undefined]>)
    .filter((entry): entry is [Method, readonly (readonly ChunkLike[])[]] => entry[1] !== undefined)
    .map(([method, solutions]) => ({ method, ...segmentationStats(solutions, options) }));
}
