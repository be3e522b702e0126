import type { RolloutTextPolicy } from "../rollouts/text-policy";

/**
 * How many bytes an annotate run adds to PostgreSQL, from per-row sizes
 * measured on real rows by `pnpm bench storage` (docs/benchmarks/storage.md;
 * the benchmark fails when this model drifts more than 10 % from what it
 * measures). Heap, TOAST and index bytes are all counted; WAL, backups and
 * bloat after deletes are not. Measured 2026-11-26 on PostgreSQL 18 with pglz
 * (the embedded server has no lz4); rollout texts of 500–1,500 tokens of
 * ProcessBench MATH steps, tokens counted by the approximate tokenizer, the
 * unit the capacity plan counts in.
 */
export const ROLLOUT_STORAGE_MODEL = {
  /** A rollout row without text (answer-only): key, seed, answer, correctness, tokens, timestamp, and its primary-key entry. */
  rolloutRowBytes: 211,
  /** Stored bytes per generated token of a kept text, once the row is long enough to be compressed (rollouts of ~500+ tokens). */
  rolloutTextBytesPerToken: 1.75,
  /** Characters per token of rollout text (the approximate tokenizer on MATH solution steps). */
  rolloutTextCharsPerToken: 3.0,
  /** PostgreSQL compresses a row's long values once the row passes about 2 kB (TOAST_TUPLE_THRESHOLD); shorter texts are stored as they are. */
  compressionThresholdBytes: 2032,
  /** A chunk value (one per prefix 0..k of an annotated solution). */
  chunkValueBytes: 262,
  /** A chunk label (one per chunk and label rule), with the covering (run, rule, params, chunk, label) index the compare views read. */
  chunkLabelBytes: 475,
  /** Per annotated solution: its stats row, its run unit and its lowest label confidence per rule (three rules). */
  perSolutionBytes: 2_591,
} as const;

/** The paper's annotation volume: about 40k prompts × 16 solutions, ≈ 6.25 chunks each, M = 16 rollouts per prefix. */
export const PAPER_ANNOTATION_VOLUME = {
  solutions: 640_000,
  chunks: 4_000_000,
  rollouts: 64_000_000,
  meanRolloutTokens: 1_000,
  labelRules: 3,
} as const;

export interface AnnotationStorageInput {
  /** Solutions the run annotates. */
  solutions: number;
  /** Their chunks (k summed over solutions). */
  chunks: number;
  /** Rollouts the run stores. */
  rollouts: number;
  /** Generated tokens per rollout, on average. */
  meanRolloutTokens: number;
  /** Label rules the run stores labels under. */
  labelRules: number;
  rolloutText: RolloutTextPolicy;
}

export interface AnnotationStorageProjection {
  rolloutBytes: number;
  /** Chunk values, labels and per-solution rows. */
  otherBytes: number;
  totalBytes: number;
}

/** Stored bytes of one kept rollout text of `tokens` generated tokens. */
export function rolloutTextBytes(tokens: number): number {
  const model = ROLLOUT_STORAGE_MODEL;
  const chars = tokens * model.rolloutTextCharsPerToken;
  // Short texts are not compressed: their characters (ASCII-heavy math) plus a varlena header.
  return chars + 4 < model.compressionThresholdBytes ? chars + 4 : tokens * model.rolloutTextBytesPerToken;
}

/** The bytes an annotate run of this size adds to the database (the dataset's own rows are not counted). */
export function projectAnnotationStorage(input: AnnotationStorageInput): AnnotationStorageProjection {
  const model = ROLLOUT_STORAGE_MODEL;
  for (const [field, value] of Object.entries({ solutions: input.solutions, chunks: input.chunks, rollouts: input.rollouts, meanRolloutTokens: input.meanRolloutTokens, labelRules: input.labelRules })) {
    if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${field} must be a finite number ≥ 0, got ${value}`);
  }
  const perRollout = model.rolloutRowBytes + (input.rolloutText === "full" ? rolloutTextBytes(input.meanRolloutTokens) : 0);
  const rolloutBytes = input.rollouts * perRollout;
  const otherBytes =
    (input.chunks + input.solutions) * model.chunkValueBytes + input.chunks * input.labelRules * model.chunkLabelBytes + input.solutions * model.perSolutionBytes * (input.labelRules > 0 ? 1 : 0);
  return { rolloutBytes, otherBytes, totalBytes: rolloutBytes + otherBytes };
}
