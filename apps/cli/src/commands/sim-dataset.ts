import { createDb } from "@stepwiser/db";
import { openLocalDatabase, resolveDataDir } from "@stepwiser/db/local";
import { createSimWorldDataset } from "@stepwiser/jobs";
import { numberFlag } from "../input/numbers";
import { migrateOnce } from "../migrate-once";
import { repoRoot } from "../paths";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

/**
 * `stepwiser sim dataset --name N [--problems 100] [--solutions 4] [--seed 0] [--error-rate 0.15] [--recovery-rate 0.1]`:
 * a dataset from the simulated world, with its ground truth, to run the method on.
 */
export async function simDatasetCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("sim dataset", {
    args,
    options: {
      name: { type: "string" },
      problems: { type: "string" },
      solutions: { type: "string" },
      seed: { type: "string" },
      "error-rate": { type: "string" },
      "recovery-rate": { type: "string" },
    },
  });
  if (!values.name) throw new UsageError("--name is required");
  const problems = numberFlag("problems", values.problems, 100);
  const solutions = numberFlag("solutions", values.solutions, 4);
  if (!Number.isInteger(problems) || problems < 1 || !Number.isInteger(solutions) || solutions < 1) throw new UsageError("--problems and --solutions must be positive integers");
  const errorRate = numberFlag("error-rate", values["error-rate"], 0.15);
  const recoveryRate = numberFlag("recovery-rate", values["recovery-rate"], 0.1);
  if (errorRate < 0 || errorRate > 1 || recoveryRate < 0 || recoveryRate > 1) throw new UsageError("--error-rate and --recovery-rate are probabilities in [0, 1]");
  const database = await openLocalDatabase({ dataDir: resolveDataDir(repoRoot), log: () => {} });
  const db = createDb(database.url, { poolSize: 2 });
  try {
    await migrateOnce(database.url);
    const result = await createSimWorldDataset(db, { name: values.name, problems, solutionsPerProblem: solutions, seed: numberFlag("seed", values.seed, 0), errorRate, recoveryRate });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await db.$disconnect();
    await database.release();
  }
}
