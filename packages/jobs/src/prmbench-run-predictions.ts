import { InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { prmbenchRunItems, type PrmbenchRunScope } from "./judging/prmbench-predictions";
import { readRunConfig } from "./read-run";

/** Where a benchmark or judge run's PRMBench step labels come from, checked: the run must be one of those kinds, on a PRMBench import. */
export async function prmbenchScopeOfRun(db: Db, runId: string): Promise<PrmbenchRunScope> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true, config: true, dataset: { select: { source: true } } } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "runId" });
  if (run.kind !== "benchmark" && run.kind !== "judge") throw new InputError(`run ${runId} is a ${run.kind} run; PRMBench predictions come from benchmark or judge runs`, { field: "runId" });
  if (run.dataset?.source !== "prmbench") throw new InputError(`run ${runId} did not run on a PRMBench import (its dataset's source is ${run.dataset?.source ?? "unknown"})`, { field: "runId" });
  const config = run.kind === "benchmark" ? readRunConfig({ ...run, kind: "benchmark" }) : readRunConfig({ ...run, kind: "judge" });
  return { runId, datasetId: config.datasetId, segmentationMethod: config.segmentationMethod, protocol: config.protocol, tiePolicy: config.tiePolicy };
}

/**
 * `stepwiser run predictions <id> --format prmbench`: `{ id, labels }` per item the run read,
 * the input of `stepwiser prmbench score`; `onLeftOut` hears of each item whose output could not
 * be read as step labels.
 */
export async function* prmbenchRunPredictions(db: Db, runId: string, onLeftOut?: (id: string, reason: string) => void): AsyncGenerator<{ id: string; labels: boolean[] }> {
  const scope = await prmbenchScopeOfRun(db, runId);
  for await (const { item, reading } of prmbenchRunItems(db, scope)) {
    if (!reading) continue;
    if ("labels" in reading) yield { id: item.id, labels: reading.labels };
    else onLeftOut?.(item.id, reading.invalid);
  }
}
