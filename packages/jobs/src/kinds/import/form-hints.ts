import type { FieldHint } from "../../runs/run-kind";

/** Label and help per field of the import configuration, for the launch form. */
export const importFormHints: Readonly<Record<string, FieldHint>> = {
  format: {
    label: "Format",
    help: "The file's format: processbench, prm800k, math-shepherd, prmbench, jsonl or parquet, or openai-batch-output for the answers of an offline run's batch file.",
  },
  fileName: { label: "File name", help: "The uploaded file's name, as lists and import reports show it." },
  targetRunId: { label: "Offline run", help: "Batch outputs only: the offline annotate or judge run whose requests the file answers." },
  options: {
    label: "Import options",
    help: "File imports only: the dataset to create or add to, subset, generator, field mapping (jsonl and parquet), and what to do with duplicates and invalid records.",
  },
};
