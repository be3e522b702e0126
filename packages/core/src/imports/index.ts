export * from "./imported-solution";
export * from "./byte-streams";
export { contentHashOf } from "./content-hash";
export * from "./field-mapping";
export { segmentByLines } from "./jsonl";
export { PRM800K_FINISH_REASONS, PRM800K_QUIRKS, PRM800K_STEP_SEPARATOR, prm800kRecordSchema, type Prm800kRecord, type Prm800kAlternative } from "./prm800k";
export { MATH_SHEPHERD_QUIRKS, MATH_SHEPHERD_STEP_TAG, mathShepherdRecordSchema } from "./math-shepherd";
export {
  readImportRecords,
  readImportOutcomes,
  outcomesOfValues,
  formatReader,
  previewImport,
  previewOutcomes,
  type ImportReadOptions,
  type ImportedRecord,
  type ImportOutcome,
  type SourceValue,
  type SourcePosition,
  type PreviewRow,
} from "./read-records";
export type { FormatReader, ConvertedRecord, IgnoredRecord } from "./format-reader";
export { readProcessBenchFile } from "./processbench-file";
export { importFormatMismatch, recordLooksLike, sniffImportFile, SNIFF_HEAD_BYTES, type FileSniff, type RecognisedFormat, type SniffedLayout } from "./format-sniff";
export * from "./import-report";
