import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const USAGE = "prior fit --run RUN";

/**
 * `stepwiser prior fit --run RUN`: fits label confidence's mixture prior (point
 * masses at Q = 0 and 1 plus a Beta part) to the rollout counts of an annotate
 * run's sampled prefixes and prints it as one JSON object,
 * `{"zero", "one", "a", "b", "prefixes", "logLikelihood", "runId"}`; the first
 * four go into a run config's `labelConfidence.mixture` with `prior: "mixture"`
 * (or name the run as `confidencePriorFromRun`).
 */
export async function priorCommand(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  if (verb !== "fit") throw new UsageError(verb ? `prior: unknown command "${verb}"\nusage: stepwiser ${USAGE}` : `prior needs a command\nusage: stepwiser ${USAGE}`);
  const { values, positionals } = parseFlags(`prior ${verb}`, { args: rest, allowPositionals: true, options: { run: { type: "string" } } });
  if (positionals.length > 0) throw new UsageError(`prior fit: unexpected argument "${positionals[0]}"\nusage: stepwiser ${USAGE}`);
  if (!values.run) throw new UsageError(`prior fit needs --run RUN (an annotate run with rollout counts)\nusage: stepwiser ${USAGE}`);
  const runId = values.run;
  const [{ fitConfidencePriorFromRun }, { withDatabase }] = await Promise.all([import("@stepwiser/jobs"), import("../database")]);
  await withDatabase(async (db) => {
    process.stdout.write(`${JSON.stringify(await fitConfidencePriorFromRun(db, runId, "--run"))}\n`);
  });
}
