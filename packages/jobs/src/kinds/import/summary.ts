import { ON_INVALID_POLICIES } from "@stepwiser/core";
import type { AuditImportSummary } from "@stepwiser/db";
import { z } from "zod";
import { count } from "../../kit/summary-fields";
import { BATCH_OUTPUT_FORMAT } from "./options";

const humanWorkCountsSchema = z.object({
  solutions: count,
  humanLabels: count,
  adjudications: count,
  annotationItems: count,
  assignments: count,
  places: z.array(z.object({ kind: z.enum(["queue", "dataset"]), id: z.string(), name: z.string(), humanLabels: count, adjudications: count, annotationItems: count, assignments: count })),
});

const importReportCountsSchema = z.object({
  policy: z.enum(ON_INVALID_POLICIES),
  maxInvalidShare: z.number().min(0).max(1),
  records: count,
  readable: count,
  invalid: count,
  invalidByReason: z.record(z.string(), count),
  ignored: count,
  ignoredByReason: z.record(z.string(), count),
  quirks: z.record(z.string(), count),
});

/** What a file import stores (the same shape its audit entry records). */
export const fileImportSummarySchema = z.object({
  format: z.string(),
  records: count,
  written: count,
  skipped: count,
  replaced: count,
  chunks: count,
  humanLabels: count,
  chunkLabels: count,
  duplicateOfRunId: z.string().optional(),
  humanWorkRefused: humanWorkCountsSchema.optional(),
  humanWorkDeleted: humanWorkCountsSchema.optional(),
  report: importReportCountsSchema.optional(),
}) satisfies z.ZodType<AuditImportSummary>;

/** What an OpenAI batch output import stores: requests and samples stored for the offline run it answers. */
export const batchOutputImportSummarySchema = z.object({
  format: z.literal(BATCH_OUTPUT_FORMAT),
  targetRunId: z.string(),
  requests: count,
  samples: count,
  skipped: count,
  skippedReason: z.string().optional(),
  promptTokens: count.optional(),
  completionTokens: count.optional(),
});

/** A file import (the format's counts) or an OpenAI batch output import. */
export const importSummarySchema = z.union([batchOutputImportSummarySchema, fileImportSummarySchema]);
export type FileImportSummary = z.output<typeof fileImportSummarySchema>;
export type ImportRunSummary = z.output<typeof importSummarySchema>;
export type BatchOutputImportSummary = z.output<typeof batchOutputImportSummarySchema>;
