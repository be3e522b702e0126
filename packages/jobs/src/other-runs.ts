import type { Db } from "@stepwiser/db";
import { runName } from "./describe-run";
import { executeExport, queueExport, type ExportRequest } from "./kinds/export/handle";
import type { JobQueue } from "./queue/queue";
import { executeImport, type ImportRunOptions } from "./kinds/import/handle";
import { tryReadRunConfig } from "./read-run";
import { UNIT_RUN_KINDS } from "./registry";
import type { OtherRuns } from "./runs/run-kind";

/** How whole runs read the runs they work on: each by its own kind, through the one typed reading. */
export const OTHER_RUNS: OtherRuns = {
  unitKinds: UNIT_RUN_KINDS,
  provenance(run) {
    const name = runName(run);
    const config = tryReadRunConfig(run);
    if (config === null) return { name, seed: null, details: ["its stored config does not read"] };
    const seed = "seed" in config && typeof config.seed === "number" ? config.seed : null;
    if (run.kind !== "annotate") return { name, seed, details: [] };
    const annotate = tryReadRunConfig({ ...run, kind: "annotate" })!;
    return {
      name,
      seed,
      details: [`policy endpoint ${annotate.policyEndpoint}, ${annotate.rollouts} rollouts per prefix (M), strategy ${annotate.strategy}, temperature ${annotate.temperature}`],
    };
  },
  segmentMethod(run) {
    return tryReadRunConfig(run)?.method ?? null;
  },
  judgeScope(run) {
    const config = tryReadRunConfig(run);
    if (!config) return null;
    return { datasetId: config.datasetId, segmentationMethod: config.segmentationMethod, solutionIds: config.solutionIds, tiePolicy: config.tiePolicy, protocol: config.protocol };
  },
};

/** Checks an export's options and source and queues it (see `queueExport`) with the product's kinds. */
export function submitExport(db: Db, queue: JobQueue, request: ExportRequest) {
  return queueExport(db, queue, request, OTHER_RUNS);
}

/** Executes an import run (see `executeImport`) with the product's kinds. */
export function runImport(db: Db, runId: string, options: Omit<ImportRunOptions, "runs"> = {}): Promise<void> {
  return executeImport(db, runId, { ...options, runs: OTHER_RUNS });
}

/** Executes an export run (see `executeExport`) with the product's kinds. */
export function runExport(db: Db, runId: string): Promise<void> {
  return executeExport(db, runId, OTHER_RUNS);
}
