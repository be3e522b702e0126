import type { ImportedSolution } from "./imported-solution";
import type { RecordAt } from "./record-context";

/** How the records of a format are laid out in its file. */
export type RecordLayout = "json-array" | "json-lines";

export interface ConvertedRecord {
  solution: ImportedSolution;
  /** The id the source gave the record, checked for duplicates within the file. */
  sourceId?: { value: string; field: string };
}

/** One import format: how its records are laid out and how one parsed record becomes a solution. */
export interface FormatReader {
  layout: RecordLayout;
  /** Throws an InputError naming the record and field. */
  convert(value: unknown, at: RecordAt): ConvertedRecord;
}
