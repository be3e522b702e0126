import { readProcessBenchFile } from "@stepwiser/core";
import type { Db, Run } from "@stepwiser/db";
import type { JobQueue } from "../../queue/queue";
import { submitImportFromContent } from "./submit";

export interface ProcessBenchImportRequest {
  fileName: string;
  content: Buffer;
  /** Dataset name; defaults to "ProcessBench <subsets>". */
  datasetName?: string;
  /** Subset name for every record, instead of the ids' prefixes. */
  subset?: string;
  createdById?: string;
}

/**
 * For a ProcessBench file already in memory (demo data, the inline API):
 * validates it whole first, so a bad record is reported before anything,
 * even the upload, is stored; then imports it as any upload is.
 */
export async function submitProcessBenchImport(db: Db, queue: JobQueue, request: ProcessBenchImportRequest): Promise<Run> {
  const records = await readProcessBenchFile(request.content, request.fileName, request.subset ? { subset: request.subset } : {});
  const subsets = [...new Set(records.map((r) => r.subset ?? ""))].sort();
  return submitImportFromContent(db, queue, {
    fileName: request.fileName,
    content: [request.content],
    createdById: request.createdById,
    expectedRecords: records.length,
    options: { format: "processbench", datasetName: request.datasetName?.trim() || `ProcessBench ${subsets.join(", ")}`, subset: request.subset },
  });
}
