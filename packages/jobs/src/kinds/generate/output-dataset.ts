import type { Db } from "@stepwiser/db";
import type { GenerateConfig } from "./config";

/**
 * The id of the dataset a generate run writes, derived from the run id. A
 * deterministic primary key lets `createMany(skipDuplicates)` (INSERT … ON
 * CONFLICT DO NOTHING) create it exactly once however often planning is
 * redone or raced, with no schema field and no state to read back: every unit
 * can compute it. `Dataset.importRunId` would do the same but means "the
 * import that created this dataset".
 */
export function generateOutputDatasetId(runId: string): string {
  return `gen-${runId}`;
}

/** Creates the output dataset if it is not there yet; "importing" until the run is summarised. */
export async function ensureOutputDataset(db: Db, runId: string, config: GenerateConfig): Promise<string> {
  const id = generateOutputDatasetId(runId);
  const input = await db.dataset.findUniqueOrThrow({ where: { id: config.datasetId }, select: { name: true, license: true } });
  const model = config.policy?.model ?? config.policyEndpoint;
  await db.dataset.createMany({
    data: [
      {
        id,
        name: config.outputDatasetName ?? `${input.name} · generate ${runId}`,
        source: "generate",
        // The problems are copied from the input; the solutions are the policy's.
        license: input.license,
        version: `seed-${config.seed}`,
        description: `${config.samplesPerProblem} solution(s) per problem of "${input.name}" by ${model} (temperature ${config.temperature}, seed ${config.seed}${config.filterMixed ? ", prompt filter on" : ""}), written by run ${runId}.`,
        status: "importing",
      },
    ],
    skipDuplicates: true,
  });
  return id;
}
