import { contentHashOf } from "./content-hash";
import type { ConvertedRecord, FormatReader, IgnoredRecord } from "./format-reader";
import type { ImportedSolution } from "./imported-solution";
import { goldStepLabels, itemQuirks, itemsOfRecord, parsePrmbenchRecord, PRMBENCH_CORRECT_CLASS, PRMBENCH_QUIRKS, type PrmbenchItem, type PrmbenchRecord } from "../prmbench/items";

export interface PrmbenchReadOptions {
  generator?: string;
  /** Overrides every item's subset (default: its class, `correct` for the all-correct items). */
  subset?: string;
}

/** The metadata an imported PRMBench item keeps: what its evaluator reads, and the record's facts. */
export interface PrmbenchItemMetadata {
  prmbench: {
    item: string;
    idx: string;
    classification: string;
    /** 1-based, as released (an error step past the last step labels nothing). */
    error_steps: number[];
    modified_steps?: number[];
    reason?: string;
  };
}

function solutionOf(item: PrmbenchItem, record: PrmbenchRecord, options: PrmbenchReadOptions): ImportedSolution {
  const generator = options.generator ?? "prmbench";
  const labels = goldStepLabels(item);
  const firstError = labels.indexOf(false);
  const metadata: PrmbenchItemMetadata = {
    prmbench: {
      item: item.id,
      idx: record.idx,
      classification: item.classification,
      error_steps: item.errorSteps,
      ...(item.classification !== PRMBENCH_CORRECT_CLASS && record.modified_steps ? { modified_steps: record.modified_steps } : {}),
      ...(item.classification !== PRMBENCH_CORRECT_CLASS && record.reason ? { reason: record.reason } : {}),
    },
  };
  return {
    externalId: item.id,
    subset: options.subset ?? item.classification,
    generator,
    problem: item.question,
    referenceAnswer: null,
    steps: item.steps,
    separator: "\n",
    finalAnswer: null,
    finalAnswerCorrect: null,
    firstErrorIndex: firstError,
    ratings: null,
    // The gold labels are the item's error steps (metadata.prmbench.error_steps), not Monte-Carlo labels: no ChunkLabel row claims them.
    hardLabels: null,
    softLabels: null,
    metadata: metadata as unknown as Record<string, unknown>,
    // The item's id is part of its identity: two classes may leave a process unchanged.
    contentHash: contentHashOf(item.question, item.steps, `${generator}:${item.id}`),
  };
}

/**
 * PRMBench (JSON lines): each record becomes the item `<classification>_<idx>` (the modified
 * question and process; its gold step labels, every listed error step Negative and the others
 * Positive, are its `metadata.prmbench.error_steps`), and a
 * `redundency` record also the all-correct item `correct_<idx>` from its original question and
 * process, as PRMBench's evaluator builds them. A repeated item is ignored (the evaluator keeps
 * the first); an error step past the last step is accepted and reported.
 */
export function prmbenchReader(options: PrmbenchReadOptions): FormatReader {
  const seen = new Set<string>();
  return {
    layout: "json-lines",
    convert(value, at): ConvertedRecord | IgnoredRecord {
      const record = parsePrmbenchRecord(value, at);
      const items = itemsOfRecord(record).filter((item) => !seen.has(item.id));
      const modified = items.find((item) => item.classification !== PRMBENCH_CORRECT_CLASS);
      if (!modified) return { ignored: { reason: PRMBENCH_QUIRKS.duplicateItem, field: "idx" } };
      for (const item of items) seen.add(item.id);
      const correct = items.find((item) => item.classification === PRMBENCH_CORRECT_CLASS);
      return {
        solution: solutionOf(modified, record, options),
        ...(correct ? { extraSolutions: [{ solution: solutionOf(correct, record, options), quirks: itemQuirks(correct) }] } : {}),
        quirks: itemQuirks(modified),
      };
    },
  };
}
