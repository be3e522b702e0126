import { NotFoundError, type ImportReportCounts } from "@stepwiser/core";
import { readRunSummary } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

export interface ImportReportInput {
  runId: string;
  /** Only entries of this kind (both without it). */
  kind?: "invalid" | "ignored";
  /** 1-based page of `pageSize` entries, in file order. */
  page: number;
  pageSize: number;
}

/**
 * An import run's report: its counts by what became of the file's records
 * (null for imports stored before the report existed, and for duplicates of an
 * earlier import, which read nothing), and one page of the entries behind the
 * invalid and ignored counts, in file order.
 */
export async function importReport({ db, input }: ServiceArgs<ImportReportInput>) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { kind: true, status: true, error: true, summary: true } });
  if (!run || run.kind !== "import") throw new NotFoundError(`no import run ${input.runId}`);
  const where = { runId: input.runId, ...(input.kind ? { kind: input.kind } : {}) };
  const [total, entries] = await Promise.all([
    db.importReportEntry.count({ where }),
    db.importReportEntry.findMany({
      where,
      orderBy: [{ line: "asc" }, { id: "asc" }],
      skip: (input.page - 1) * input.pageSize,
      take: input.pageSize,
      select: { id: true, kind: true, file: true, line: true, record: true, field: true, reason: true },
    }),
  ]);
  const read = readRunSummary({ kind: "import", summary: run.summary });
  // An OpenAI batch output import stores samples, not solutions: it has no report.
  const summary = read && "records" in read ? read : null;
  const counts: ImportReportCounts | null = summary?.report ?? null;
  return {
    status: run.status,
    error: run.error,
    counts,
    /** Solutions written (new, or replacing stored ones): what "imported" means on the page. */
    imported: summary && run.status === "completed" && !summary.duplicateOfRunId ? summary.written + summary.replaced : null,
    /** Records that were already in the dataset and left as they were. */
    alreadyStored: summary && run.status === "completed" ? summary.skipped : null,
    duplicateOfRunId: summary?.duplicateOfRunId ?? null,
    total,
    entries,
  };
}
