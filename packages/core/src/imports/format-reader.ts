import type { ImportedSolution } from "./imported-solution";
import type { RecordAt } from "./record-context";

/** How the records of a format are laid out in its file. */
export type RecordLayout = "json-array" | "json-lines";

export interface ConvertedRecord {
  solution: ImportedSolution;
  /** The id the source gave the record, checked for duplicates within the file. */
  sourceId?: { value: string; field: string };
  /**
   * Known departures of the released data from its documented layout that the
   * reader accepted and how (e.g. "lowercase step marker"): counted in the
   * import report, never a reason to refuse the record.
   */
  quirks?: string[];
  /**
   * Solutions the same record also gives, stored before `solution` in this order (PRMBench's
   * all-correct item, built from a record's original process), each with its own quirks.
   */
  extraSolutions?: Array<{ solution: ImportedSolution; quirks: string[] }>;
}

/**
 * A well-formed record that holds nothing to import, in a way the dataset's
 * documentation allows (e.g. a PRM800K solution whose labeller gave up before
 * labelling any step). Counted in the import report under its reason; never
 * counted as invalid, under either policy.
 */
export interface IgnoredRecord {
  ignored: { reason: string; field?: string };
}

/** One import format: how its records are laid out and how one parsed record becomes a solution. */
export interface FormatReader {
  layout: RecordLayout;
  /** Throws an InputError naming the record and field. */
  convert(value: unknown, at: RecordAt): ConvertedRecord | IgnoredRecord;
}
