import type { SkippedRecordEntry } from "@stepwiser/core";
import type { Prisma } from "@stepwiser/db";
import { insertStatement, type SequentialIds } from "./write-solutions";

/** One row of an import's report: a record left out as invalid, or ignored as its dataset allows. */
export interface ReportEntry extends SkippedRecordEntry {
  kind: "invalid" | "ignored";
}

/** PostgreSQL text cannot hold U+0000; a reason may quote a file's bytes, so it is written escaped. */
const storable = (text: string) => text.replaceAll("\u0000", "\\u0000");

/**
 * Writes a batch of report entries in one statement (each column one array
 * parameter, as the solutions are written), inside the import's transaction:
 * a failed import leaves no entry behind.
 */
export async function writeReportEntries(tx: Prisma.TransactionClient, runId: string, ids: SequentialIds, entries: readonly ReportEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const { sql, params } = insertStatement([
    {
      table: "ImportReportEntry",
      columns: [
        ["id", "text", entries.map(() => ids.id())],
        ["runId", "text", entries.map(() => runId)],
        ["kind", '"ImportReportEntryKind"', entries.map((e) => e.kind)],
        ["file", "text", entries.map((e) => storable(e.file))],
        ["line", "int4", entries.map((e) => e.line)],
        ["record", "int4", entries.map((e) => e.record)],
        ["field", "text", entries.map((e) => (e.field === null ? null : storable(e.field)))],
        ["reason", "text", entries.map((e) => storable(e.reason))],
        ["reasonKey", "text", entries.map((e) => storable(e.reasonKey))],
      ],
    },
  ]);
  await tx.$executeRawUnsafe(sql, ...params);
}
