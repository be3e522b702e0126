import { IMPORT_FORMATS, isMappedImportFormat, type ImportFormat } from "@stepwiser/core";

/** How the import form names and explains each format. */
export const IMPORT_FORMAT_CHOICES: Readonly<Record<ImportFormat, { name: string; hint: string }>> = {
  processbench: {
    name: "ProcessBench",
    hint: "A JSON array of ProcessBench records (id, generator, problem, steps, final_answer_correct, label).",
  },
  prm800k: {
    name: "PRM800K",
    hint: "PRM800K phase 1 or 2 JSONL: each line a labeller's path through a solution; its step ratings become imported human labels.",
  },
  "math-shepherd": {
    name: "Math-Shepherd",
    hint: "Math-Shepherd JSONL (input with ки after each step, label with +/−): the hard labels become Abs-Q labels of the import run.",
  },
  prmbench: {
    name: "PRMBench",
    hint: "PRMBench JSONL (modified_question, modified_process, error_steps, idx, classification): one solution per <classification>_<idx> item with its error steps as gold labels, plus the all-correct item correct_<idx> of every redundency record, as PRMBench's evaluator builds them.",
  },
  jsonl: {
    name: "Generic JSONL",
    hint: "One JSON object per line; the field mapping below says where each part of a solution is.",
  },
  parquet: {
    name: "Parquet (field mapping)",
    hint: "A Parquet file (the Hugging Face Hub's format), read one row group at a time; the field mapping below names its columns, with dotted paths into structs and lists.",
  },
};

/** The format select's options, in the order the formats are listed. */
export const IMPORT_FORMAT_OPTIONS: ReadonlyArray<readonly [ImportFormat, string]> = IMPORT_FORMATS.map((format) => [format, IMPORT_FORMAT_CHOICES[format].name] as const);

/** Every format may come as .json or .jsonl (the format select decides how the file is read), Parquet as .parquet. */
export const ACCEPTED_IMPORT_FILES = ".json,.jsonl,.ndjson,.parquet,application/json,application/x-ndjson,application/vnd.apache.parquet";

/** Whether the form shows the field mapping for the format. */
export const formatUsesMapping = (format: ImportFormat): boolean => isMappedImportFormat(format);

/** What a record's position is called: the line it starts on in a text file, the row of a Parquet file (both 1-based). */
export const recordPositionName = (format: ImportFormat): "Line" | "Row" => (format === "parquet" ? "Row" : "Line");
