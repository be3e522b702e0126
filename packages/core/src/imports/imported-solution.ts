import type { BinaryLabel } from "../stats/confusion";

/**
 * The formats an import reads. `jsonl` and `parquet` are generic: a field
 * mapping says where each part of a solution is in a record (a JSON object per
 * line, or a Parquet row).
 */
export const IMPORT_FORMATS = ["processbench", "prm800k", "math-shepherd", "prmbench", "jsonl", "parquet"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The formats read through a field mapping, which they require. */
export const MAPPED_IMPORT_FORMATS = ["jsonl", "parquet"] as const satisfies readonly ImportFormat[];

export function isMappedImportFormat(format: ImportFormat): format is (typeof MAPPED_IMPORT_FORMATS)[number] {
  return (MAPPED_IMPORT_FORMATS as readonly ImportFormat[]).includes(format);
}

/** A PRM800K-style human rating of one step: -1 wrong, 0 neutral, +1 right. */
export type StepRating = -1 | 0 | 1;

/** A human rating that came with the source file (PRM800K). */
export interface ImportedRating {
  rating: StepRating | null;
  flagged: boolean;
  /** The labeller's id in the source file, when it names one. */
  labeler: string | null;
  /** Set when the rated step is one the labeller wrote (PRM800K `human_completion`), not a model's. */
  source?: "human_completion";
}

/**
 * One solution read from any import format, in the shape the importer stores:
 * a solution whose text is its steps joined by `separator`, one chunk per step.
 * Per-step arrays (ratings, hardLabels, softLabels) have one entry per step when present.
 */
export interface ImportedSolution {
  /** Stable id within the dataset: the source's id, else derived from the content hash. */
  externalId: string;
  subset: string | null;
  generator: string;
  problem: string;
  referenceAnswer: string | null;
  steps: string[];
  /** Text between consecutive steps in the stored solution ("\n\n" for paragraphs, "\n" for PRM800K lines). */
  separator: string;
  finalAnswer: string | null;
  finalAnswerCorrect: boolean | null;
  /** First erroneous step per the source; -1 = none; null = unknown. */
  firstErrorIndex: number | null;
  ratings: ImportedRating[] | null;
  /** Positive/Negative per step from the source (Math-Shepherd "+"/"-"); null entries are unlabelled steps. */
  hardLabels: (BinaryLabel | null)[] | null;
  /** Soft labels: the source's estimate of Q per step, in [0, 1]. */
  softLabels: (number | null)[] | null;
  /** Source-specific facts kept for provenance (e.g. PRM800K finish_reason). */
  metadata: Record<string, unknown>;
  /** SHA-256 (hex) of problem, steps and generator: how a record imported twice is recognised. */
  contentHash: string;
}
