import { earlierImport } from "@stepwiser/api/services/dataset";
import type { FileImportSummary } from "@stepwiser/jobs";
import type { Db } from "@stepwiser/db";

/** A moment as the command line prints it: "2026-12-04 10:31 UTC". */
export function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export interface NothingImported {
  /** The sentence stderr and the JSON summary both carry. */
  notice: string;
  /** The import whose records these are, when the whole file was recognised as an earlier one. */
  duplicateOf?: { runId: string; datasetId: string | null; datasetName: string | null; importedAt: string };
}

/**
 * Why an import that completed wrote nothing, when every record of its file is already in
 * the target dataset: the file was recognised as one imported before (same bytes, same
 * options; the earlier import, its dataset and date are named), or each record was
 * already there. Undefined when it wrote something or read nothing.
 */
export async function nothingImported(db: Db, file: string, runId: string, summary: Partial<FileImportSummary>): Promise<NothingImported | undefined> {
  const dataset = (info: { id: string; name: string } | null) => (info ? `dataset "${info.name}" (${info.id})` : "a dataset deleted since");
  if (summary.duplicateOfRunId) {
    const earlier = await earlierImport({ db, input: { runId: summary.duplicateOfRunId } });
    const where = dataset(earlier.dataset);
    return {
      notice:
        `every record of ${file} is already in ${where}, imported by run ${earlier.runId} on ${utcMinute(earlier.importedAt)}; nothing imported ` +
        `(--duplicates replace imports the file again into that dataset; --name with another name imports it into a new dataset)`,
      duplicateOf: { runId: earlier.runId, datasetId: earlier.dataset?.id ?? null, datasetName: earlier.dataset?.name ?? null, importedAt: earlier.importedAt.toISOString() },
    };
  }
  const skipped = summary.skipped ?? 0;
  if (skipped === 0 || (summary.written ?? 0) > 0 || (summary.replaced ?? 0) > 0) return undefined;
  const own = await earlierImport({ db, input: { runId } });
  return { notice: `every record of ${file} is already in ${dataset(own.dataset)}; nothing imported (--duplicates replace replaces them)` };
}
