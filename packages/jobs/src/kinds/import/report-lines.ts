import type { Db } from "@stepwiser/db";

/** One line of an import's report as JSON Lines: a record that was not imported, and why. */
export interface ImportReportLine {
  file: string;
  line: number;
  record: number | null;
  field: string | null;
  reason: string;
  kind: "invalid" | "ignored";
}

const PAGE = 2000;

/**
 * Every entry of an import run's report in file order (by line, then in the
 * order written), read page by page so a report of any length is streamed,
 * never held whole.
 */
export async function* importReportLines(db: Db, runId: string): AsyncGenerator<ImportReportLine> {
  let after: { line: number; id: string } | null = null;
  for (;;) {
    const page: Array<ImportReportLine & { id: string }> = await db.importReportEntry.findMany({
      where: { runId, ...(after ? { OR: [{ line: { gt: after.line } }, { line: after.line, id: { gt: after.id } }] } : {}) },
      orderBy: [{ line: "asc" }, { id: "asc" }],
      take: PAGE,
      select: { id: true, file: true, line: true, record: true, field: true, reason: true, kind: true },
    });
    for (const { id: _id, ...entry } of page) yield { file: entry.file, line: entry.line, record: entry.record, field: entry.field, reason: entry.reason, kind: entry.kind };
    if (page.length < PAGE) return;
    const last = page.at(-1)!;
    after = { line: last.line, id: last.id };
  }
}
