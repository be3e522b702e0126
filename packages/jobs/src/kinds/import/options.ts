import { DEFAULT_MAX_INVALID_SHARE, fieldMappingSchema, IMPORT_FORMATS, isMappedImportFormat, ON_INVALID_POLICIES, type ImportFormat } from "@stepwiser/core";
import { z } from "zod";

/** What to do with a record that is already in the target dataset (same id or same content hash). */
export const DUPLICATE_POLICIES = ["skip", "replace"] as const;

/** The options as a stored import run holds them: fields and defaults, without the checks only a new submission must pass. */
export const importStoredOptionsSchema = z.object({
    format: z.enum(IMPORT_FORMATS),
    /** Name of the dataset created by the import (default from the file name). */
    datasetName: z.string().trim().min(1).max(200).optional(),
    /** Add the records to this existing dataset instead of creating one. */
    datasetId: z.string().min(1).optional(),
    /** Subset name for every record (ProcessBench default: the id's prefix, e.g. "gsm8k"). */
    subset: z.string().trim().min(1).max(100).optional(),
    /** Generator for formats that do not name the policy that wrote the solutions. */
    generator: z.string().trim().min(1).max(200).optional(),
    /** Generic JSONL and Parquet: where each field lives in a record (a JSON object, a Parquet row). */
    mapping: fieldMappingSchema.optional(),
    duplicates: z.enum(DUPLICATE_POLICIES).default("skip"),
    /**
     * Replace only: delete the human work (human labels, annotation items, assignments, adjudications) that
     * replaced solutions hold. Without it such an import is refused, naming how much and where.
     */
    deleteHumanLabels: z.boolean().default(false),
    /**
     * What to do with a record that cannot be read: `fail` stops the import and stores nothing;
     * `skip` leaves it out and lists it in the import's report. Configs stored before the option read as `fail`.
     */
    onInvalid: z.enum(ON_INVALID_POLICIES).default("fail"),
    /** Largest share of the file's records a `skip` import may leave out as invalid before it fails instead (0 to 1). */
    maxInvalidShare: z.number().min(0).max(1).default(DEFAULT_MAX_INVALID_SHARE),
});

export const importOptionsSchema = importStoredOptionsSchema.superRefine((options, ctx) => {
    if (isMappedImportFormat(options.format) && !options.mapping) {
      const name = options.format === "jsonl" ? "generic JSONL" : "Parquet";
      ctx.addIssue({ code: "custom", path: ["mapping"], message: `a ${name} import needs a field mapping (at least problem and steps or text)` });
    }
    if (!isMappedImportFormat(options.format) && options.mapping) {
      ctx.addIssue({ code: "custom", path: ["mapping"], message: `a field mapping applies to generic JSONL and Parquet only, not ${options.format}` });
    }
    if (options.onInvalid === "fail" && options.maxInvalidShare !== DEFAULT_MAX_INVALID_SHARE) {
      ctx.addIssue({ code: "custom", path: ["maxInvalidShare"], message: 'a largest invalid share applies only when invalid records are skipped (onInvalid "skip")' });
    }
    if (options.deleteHumanLabels && options.duplicates !== "replace") {
      ctx.addIssue({ code: "custom", path: ["deleteHumanLabels"], message: 'deleting human labels applies only when duplicates are replaced (duplicates "replace")' });
    }
    if (options.datasetId && options.datasetName) {
      ctx.addIssue({ code: "custom", path: ["datasetName"], message: "give a new dataset's name or an existing dataset's id, not both" });
    }
  });

export type ImportOptions = z.output<typeof importOptionsSchema>;
export type ImportOptionsInput = z.input<typeof importOptionsSchema>;

interface FormatFacts {
  /** Segmentation method of the chunks an import stores: one chunk per source step. */
  segmentationMethod: string;
  license: string | null;
  label: string;
}

export const FORMAT_FACTS: Record<ImportFormat, FormatFacts> = {
  processbench: { segmentationMethod: "processbench-paragraphs", license: "Apache-2.0", label: "ProcessBench" },
  prm800k: { segmentationMethod: "prm800k-steps", license: "MIT", label: "PRM800K" },
  "math-shepherd": { segmentationMethod: "math-shepherd-steps", license: null, label: "Math-Shepherd" },
  prmbench: { segmentationMethod: "prmbench-steps", license: "Apache-2.0", label: "PRMBench" },
  jsonl: { segmentationMethod: "source-steps", license: null, label: "JSONL" },
  parquet: { segmentationMethod: "source-steps", license: null, label: "Parquet" },
};

/** An import run's config when it brings back a `vllm run-batch` output for an offline run. */
export const BATCH_OUTPUT_FORMAT = "openai-batch-output";

/**
 * An import run's stored config: a file import (its parsed options, the format and file name
 * repeated for lists), or a batch output brought back for the offline run it names.
 */
const batchOutputImportConfigSchema = z.object({ format: z.literal(BATCH_OUTPUT_FORMAT), fileName: z.string(), targetRunId: z.string().min(1) });
const fileImportConfigSchema = z.object({ format: z.enum(IMPORT_FORMATS), fileName: z.string(), options: importStoredOptionsSchema });
export const importRunConfigSchema = z.union([batchOutputImportConfigSchema, fileImportConfigSchema]);
/** An import run's config as a new submission must pass it: its options with every check. */
export const importSubmitConfigSchema = z.union([batchOutputImportConfigSchema, fileImportConfigSchema.extend({ options: importOptionsSchema })]);
export type ImportRunConfig = z.output<typeof importRunConfigSchema>;
export type BatchOutputImportConfig = z.output<typeof batchOutputImportConfigSchema>;
