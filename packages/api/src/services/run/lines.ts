import { InputError, NotFoundError } from "@stepwiser/core";
import { chunkLabelsLines, PREDICTION_RUN_KINDS, predictionLines } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

/** The run kinds that store chunk labels and Q-values: annotate runs, and imports of labelled datasets. */
export const LABELLED_RUN_KINDS = ["annotate", "import"] as const;

async function runOfKind<Kind extends string>(args: ServiceArgs<{ id: string }>, kinds: readonly Kind[], what: string) {
  const run = await args.db.run.findUnique({ where: { id: args.input.id }, select: { id: true, kind: true } });
  if (!run) throw new NotFoundError(`run ${args.input.id} does not exist`);
  if (!(kinds as readonly string[]).includes(run.kind)) {
    throw new InputError(`run ${run.id} is a ${run.kind} run; ${what} come from ${kinds.join(" or ")} runs`, { field: "id" });
  }
  return { id: run.id, kind: run.kind as Kind };
}

/**
 * A run's chunk labels as the labels export writes them (one object per chunk:
 * Q-values, every stored label with its confidence, human ratings), solution by
 * solution, read a page at a time. The run is checked before the first line.
 */
export async function runLabelLines(args: ServiceArgs<{ id: string }>) {
  const run = await runOfKind(args, LABELLED_RUN_KINDS, "chunk labels");
  return chunkLabelsLines(args.db, run.id);
}

/** A benchmark or judge run's ProcessBench predictions `{id, prediction}`, as the predictions export writes them. */
export async function runPredictionLines(args: ServiceArgs<{ id: string }>) {
  const run = await runOfKind(args, PREDICTION_RUN_KINDS, "predictions");
  return predictionLines(args.db, run);
}
