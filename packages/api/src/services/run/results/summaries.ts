/**
 * The summaries runs store on `Run.summary` are read by their kinds' summary
 * schemas (`summarySchema` of each kind in packages/jobs/src/kinds); a summary of
 * another shape reads as null and the page falls back to the raw JSON.
 */
export {
  annotateSummarySchema,
  benchmarkSummarySchema,
  bestOfNSummarySchema,
  chunkResetSummarySchema,
  exportSummarySchema,
  generateSummarySchema,
  importSummarySchema,
  judgeOutputsSchema,
  judgeSummarySchema,
  readSummary,
  segmentSummarySchema,
} from "@stepwiser/jobs";

/**
 * The scalar facts of an export's report, flattened to dotted names
 * ("rows.train": 120): an export kind's report has its own shape, and this
 * view only lists what it counted.
 */
export function reportFacts(report: unknown, prefix = "", depth = 0): { name: string; value: number | string | boolean }[] {
  if (report === null || typeof report !== "object" || depth > 3) return [];
  const facts: { name: string; value: number | string | boolean }[] = [];
  for (const [key, value] of Object.entries(report as Record<string, unknown>)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "number" || typeof value === "boolean" || (typeof value === "string" && value.length <= 200)) facts.push({ name, value });
    else if (value && typeof value === "object" && !Array.isArray(value)) facts.push(...reportFacts(value, name, depth + 1));
  }
  return facts;
}
