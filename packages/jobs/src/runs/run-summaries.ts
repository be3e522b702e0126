import { z } from "zod";

/**
 * Readers of the summaries runs store on `Run.summary`, beside the code that
 * writes them. The column is JSON written by whichever version ran the run, so
 * it is parsed, not trusted: a summary of another shape reads as null.
 */

/** An export's summary (exports/handle.ts writes it): its kind, its files, and what it counted. */
export const exportSummarySchema = z.object({
  kind: z.string(),
  files: z.array(z.object({ id: z.string(), fileName: z.string(), sizeBytes: z.number().int().nonnegative(), sha256: z.string().nullable().optional() })),
  /** What the export counted (rows per split, chunks, solutions, …): numbers and short strings by name. */
  report: z.unknown(),
});

/** What an OpenAI batch export's report counts: the requests written and the units left out. */
export const batchExportReportSchema = z.object({ requests: z.number().int().nonnegative().optional(), skippedUnits: z.number().int().nonnegative().optional() });

/** The summary read by `schema`, or null when there is none or it has another shape. */
export function readSummary<T>(schema: z.ZodType<T>, summary: unknown): T | null {
  if (summary === null || summary === undefined) return null;
  const parsed = schema.safeParse(summary);
  return parsed.success ? parsed.data : null;
}
