import { z } from "zod";

/** An export's summary (handle.ts writes it): its kind, its files, and what it counted. */
export const exportSummarySchema = z.object({
  kind: z.string(),
  files: z.array(z.object({ id: z.string(), fileName: z.string(), sizeBytes: z.number().int().nonnegative(), sha256: z.string().nullable().optional() })),
  /** What the export counted (rows per split, chunks, solutions, …): numbers and short strings by name. */
  report: z.unknown(),
});

/** What an OpenAI batch export's report counts: the requests written and the units left out. */
export const batchExportReportSchema = z.object({ requests: z.number().int().nonnegative().optional(), skippedUnits: z.number().int().nonnegative().optional() });
