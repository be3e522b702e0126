import { InputError } from "@stepwiser/core";
import { importProcessBenchCommand } from "./commands/import-processbench";
import { UsageError } from "./usage-error";

/**
 * `stepwiser <command>`: results on stdout (JSON), progress and logs on stderr,
 * exit code 2 for bad usage or bad input, 1 for other failures.
 */
const USAGE = `usage: stepwiser <command>

commands:
  import processbench <file.json>... [--name NAME] [--detach]
      Import ProcessBench files (one dataset per file) as jobs; waits for them
      unless --detach. Uses DATABASE_URL, else the embedded database of this checkout.
`;

type Command = (args: string[]) => Promise<void>;

const commands: Record<string, Command> = {
  "import processbench": importProcessBenchCommand,
};

async function main(argv: string[]) {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  for (const [name, run] of Object.entries(commands)) {
    const words = name.split(" ");
    if (words.every((w, i) => argv[i] === w)) return run(argv.slice(words.length));
  }
  throw new UsageError(`unknown command "${argv.slice(0, 2).join(" ")}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof InputError) {
      process.stderr.write(`stepwiser: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`stepwiser: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
