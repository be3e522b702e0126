import type { ImportReportCounts } from "@stepwiser/core";

/** Reasons listed by name in the summary; the rest are counted together. */
const TOP_REASONS = 5;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Counts by key, most frequent first (ties by key), the first `top` by name and the rest as one line. */
function countLines(counts: Record<string, number>, top: number): string[] {
  const sorted = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const lines = sorted.slice(0, top).map(([key, n]) => `    ${String(n).padStart(6)} × ${key}`);
  const rest = sorted.slice(top).reduce((sum, [, n]) => sum + n, 0);
  if (rest > 0) lines.push(`    ${String(rest).padStart(6)} × ${plural(sorted.length - top, "other reason")}`);
  return lines;
}

/**
 * What an import did with its file's records, for a person at a terminal:
 * imported, skipped as invalid with the most frequent reasons, ignored, quirks,
 * and the command that writes the full report.
 */
export function importSummaryLines(file: string, runId: string, imported: { written: number; skipped: number; replaced: number } | null, report: ImportReportCounts): string[] {
  const lines: string[] = [];
  const head = imported
    ? `${file}: imported ${plural(report.readable, "record")} of ${report.records} (${imported.written} written, ${imported.skipped} already in the dataset, ${imported.replaced} replaced)`
    : `${file}: ${plural(report.records, "record")} read, nothing imported`;
  lines.push(head);
  if (report.invalid > 0) {
    const share = ((100 * report.invalid) / report.records).toFixed(1);
    lines.push(`  skipped as invalid: ${report.invalid} (${share} %, at most ${(100 * report.maxInvalidShare).toFixed(1)} % allowed)`, ...countLines(report.invalidByReason, TOP_REASONS));
  }
  if (report.ignored > 0) lines.push(`  ignored (nothing to import): ${report.ignored}`, ...countLines(report.ignoredByReason, TOP_REASONS));
  const quirks = Object.values(report.quirks).reduce((sum, n) => sum + n, 0);
  if (quirks > 0) lines.push(`  accepted quirks: ${quirks}`, ...countLines(report.quirks, Number.POSITIVE_INFINITY));
  if (report.invalid > 0 || report.ignored > 0) lines.push(`  full report: stepwiser import report ${runId} -o report.jsonl`);
  return lines;
}
