// Seeds a large synthetic dataset (see large-dataset.ts) and prints the result as JSON.
//   npx tsx packages/db/src/seed/cli.ts --solutions 100000 [--seed 1] [--name NAME] [--database-url URL]
import { parseArgs } from "node:util";
import { seedLargeDataset } from "./large-dataset";

const usage = "usage: tsx src/seed/cli.ts [--solutions N] [--seed N] [--name NAME] [--min-chunks N] [--max-chunks N] [--batch-size N] [--concurrency N] [--rollouts-per-prefix 0|16] [--foreign-key-checks] [--database-url URL]";

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new Error(`--${name} must be an integer, got ${JSON.stringify(value)}\n${usage}`);
  return parsed;
}

async function main() {
  const { values } = parseArgs({
    options: {
      solutions: { type: "string" },
      seed: { type: "string" },
      name: { type: "string" },
      "min-chunks": { type: "string" },
      "max-chunks": { type: "string" },
      "batch-size": { type: "string" },
      concurrency: { type: "string" },
      "rollouts-per-prefix": { type: "string" },
      "foreign-key-checks": { type: "boolean" },
      "database-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const url = values["database-url"] ?? process.env.DATABASE_URL;
  if (!url) throw new Error(`no database: pass --database-url or set DATABASE_URL\n${usage}`);
  const minChunks = integer("min-chunks", values["min-chunks"]);
  const maxChunks = integer("max-chunks", values["max-chunks"]);
  const rolloutsPerPrefix = integer("rollouts-per-prefix", values["rollouts-per-prefix"]);
  if (rolloutsPerPrefix !== undefined && rolloutsPerPrefix !== 0 && rolloutsPerPrefix !== 16) throw new Error(`--rollouts-per-prefix must be 0 or 16\n${usage}`);
  const started = Date.now();
  const result = await seedLargeDataset(url, {
    solutions: integer("solutions", values.solutions),
    seed: integer("seed", values.seed),
    name: values.name,
    batchSize: integer("batch-size", values["batch-size"]),
    concurrency: integer("concurrency", values.concurrency),
    foreignKeyChecks: values["foreign-key-checks"],
    rolloutsPerPrefix: rolloutsPerPrefix as 0 | 16 | undefined,
    ...(minChunks !== undefined || maxChunks !== undefined ? { chunksPerSolution: { min: minChunks, max: maxChunks } } : {}),
    onProgress: ({ phase, solutions, total, elapsedMs }) => process.stderr.write(`seeded ${phase === "rollouts" ? "the rollouts of " : ""}${solutions}/${total} solutions in ${(elapsedMs / 1000).toFixed(1)} s\n`),
  });
  process.stdout.write(`${JSON.stringify({ ...result, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
