import path from "node:path";
import { readInputJson } from "../input/files";
import { numberFlag } from "../input/numbers";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const USAGE = "plan annotate --config FILE.json --tokens-per-second N [--prefill-tokens-per-second N]";

/** A throughput flag: a positive finite number. */
function rateFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = numberFlag(flag, raw);
  if (value <= 0) throw new UsageError(`--${flag} must be a positive number, got "${raw}"`);
  return value;
}

/**
 * `stepwiser plan annotate --config FILE.json --tokens-per-second N [--prefill-tokens-per-second N]`:
 * the requests, rollouts, tokens and hours an annotate run on this configuration
 * would need, as one JSON object. Reads the database, sends no request.
 */
export async function planCommand(args: string[]): Promise<void> {
  const [kind, ...rest] = args;
  if (kind !== "annotate") throw new UsageError(kind ? `plan: unknown run kind "${kind}" (only annotate is planned)\nusage: stepwiser ${USAGE}` : `plan needs a run kind\nusage: stepwiser ${USAGE}`);
  const { values, positionals } = parseFlags(`plan ${kind}`, {
    args: rest,
    allowPositionals: true,
    options: { config: { type: "string" }, "tokens-per-second": { type: "string" }, "prefill-tokens-per-second": { type: "string" } },
  });
  if (positionals.length > 0) throw new UsageError(`plan annotate: unexpected argument "${positionals[0]}"\nusage: stepwiser ${USAGE}`);
  if (!values.config) throw new UsageError(`plan annotate needs --config FILE.json\nusage: stepwiser ${USAGE}`);
  const tokensPerSecond = rateFlag("tokens-per-second", values["tokens-per-second"]);
  if (tokensPerSecond === undefined) throw new UsageError(`plan annotate needs --tokens-per-second N (the cluster's generated tokens per second)\nusage: stepwiser ${USAGE}`);
  const prefillTokensPerSecond = rateFlag("prefill-tokens-per-second", values["prefill-tokens-per-second"]);

  const config = await readInputJson(values.config);
  // Loaded once the flags are known good: a usage error does not pay for the database client's start-up.
  const [{ parseAnnotatePlanConfig, planAnnotateRun }, { withDatabase }] = await Promise.all([import("@stepwiser/jobs"), import("../database")]);
  const source = path.basename(values.config);
  parseAnnotatePlanConfig(config, source); // a bad field is reported before the database is opened
  await withDatabase(async (db) => {
    const plan = await planAnnotateRun(db, config, { tokensPerSecond, prefillTokensPerSecond, source });
    process.stdout.write(`${JSON.stringify(plan)}\n`);
  });
}
