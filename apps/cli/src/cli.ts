import { readFileSync } from "node:fs";
import { InputError } from "@stepwiser/core";
import { asksForHelp, helpNameFor, listedFlagNames, renderHelp, USAGE } from "./help";
import { unknownFlagsAs } from "./input/flags";
import { RemoteApiError, RemoteConnectionError } from "./remote/client";
import { resolveRemote, takeRemoteFlags } from "./remote/settings";
import { UsageError } from "./usage-error";

type Command = (args: string[]) => Promise<void>;

// Loaded on demand: the pure commands must not pay for the database client's start-up.
const commands: Record<string, () => Promise<Command>> = {
  import: async () => (await import("./commands/import")).importCommand,
  "import report": async () => (await import("./commands/import-report")).importReportCommand,
  export: async () => (await import("./commands/export")).exportCommand,
  "processbench score": async () => (await import("./commands/processbench-score")).processBenchScoreCommand,
  "prmbench score": async () => (await import("./commands/prmbench-score")).prmbenchScoreCommand,
  grade: async () => (await import("./commands/grade")).gradeCommand,
  label: async () => (await import("./commands/label")).labelCommand,
  verdict: async () => (await import("./commands/verdict")).verdictCommand,
  segment: async () => (await import("./commands/segment")).segmentCommand,
  run: async () => (await import("./commands/run")).runCommand,
  plan: async () => (await import("./commands/plan")).planCommand,
  prior: async () => (await import("./commands/prior")).priorCommand,
  "sim dataset": async () => (await import("./commands/sim-dataset")).simDatasetCommand,
  "sim run-batch": async () => (await import("./commands/sim-run-batch")).simRunBatchCommand,
  batch: async () => (await import("./commands/batch")).batchCommand,
  "sim-cluster": async () => (await import("./commands/sim-cluster")).simClusterCommand,
  "chunks check": async () => (await import("./commands/chunks-check")).chunksCheckCommand,
  "sandbox run": async () => (await import("./commands/sandbox")).sandboxRunCommand,
  "sandbox check": async () => (await import("./commands/sandbox")).sandboxCheckCommand,
  endpoint: async () => (await import("./commands/endpoint")).endpointCommand,
};

/** The command names dispatch knows ("run", "sim dataset", …), for tests that check each has help. */
export const COMMAND_NAMES: readonly string[] = Object.keys(commands);

/** Commands that never touch a database: they run the same in remote mode (STEPWISER_URL). */
const DATABASE_FREE = new Set(["processbench score", "prmbench score", "grade", "label", "verdict", "segment", "sim run-batch", "sim-cluster", "chunks check", "sandbox run", "sandbox check"]);

/** Commands with a remote mode: their own arguments may carry --url and --token (`endpoint` only for `endpoint list`, whose siblings have a --url of their own). */
function takesRemoteFlags(name: string, args: readonly string[]): boolean {
  return ["run", "export", "import", "import report"].includes(name) || (name === "endpoint" && args[0] === "list");
}

/** The command name (from the commands map) argv starts with: the longest, so "processbench score" wins over a shorter prefix. */
function commandOf(argv: readonly string[]): string | undefined {
  const names = Object.keys(commands).sort((a, b) => b.split(" ").length - a.split(" ").length);
  return names.find((name) => name.split(" ").every((w, i) => argv[i] === w));
}

/** The CLI's version: apps/cli/package.json's. */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
  return manifest.version ?? "unknown";
}

async function dispatch(given: string[]) {
  // `stepwiser --url URL --token TOKEN <command> …`: remote mode's flags before the command.
  const leading = takeRemoteFlags(given, { leadingOnly: true });
  const argv = leading.args;
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  if (argv[0] === "--version" || argv[0] === "-V") {
    process.stdout.write(`${cliVersion()}\n`);
    return;
  }
  if (argv[0] === "help") {
    // `help <command words…>` is `<command words…> --help`.
    const words = argv.slice(1);
    if (words.length === 0) {
      process.stdout.write(USAGE);
      return;
    }
    const name = commandOf(words);
    if (!name) throw new UsageError(`help: unknown command "${words.join(" ")}"\n\n${USAGE}`);
    process.stdout.write(renderHelp(helpNameFor(name, words.slice(name.split(" ").length))));
    return;
  }
  const name = commandOf(argv);
  if (name) {
    const args = argv.slice(name.split(" ").length);
    // Help comes before any flag validation, and before a command module (and its database client) is loaded.
    if (asksForHelp(args)) {
      process.stdout.write(renderHelp(helpNameFor(name, args)));
      return;
    }
    const helpName = helpNameFor(name, args);
    let commandArgs = args;
    if (!DATABASE_FREE.has(name)) {
      const own = takesRemoteFlags(name, args) ? takeRemoteFlags(args) : { args, flags: {} };
      const remote = resolveRemote({ ...leading.flags, ...own.flags }, process.env);
      if (remote) {
        // Remote mode: the studio's REST API; its module loads no database client.
        const { runRemoteCommand } = await import("./remote/commands");
        return await runRemoteCommand(name, own.args, remote).catch(unknownFlagsAs(helpName, () => listedFlagNames(helpName)));
      }
      commandArgs = own.args;
    } else if (leading.flags.url !== undefined || leading.flags.token !== undefined) {
      // A command that needs no database runs here either way; remote flags given to it are still checked.
      resolveRemote(leading.flags, process.env);
    }
    const run = await commands[name]!();
    return await run(commandArgs).catch(unknownFlagsAs(helpName, () => listedFlagNames(helpName)));
  }
  // The command names, not the whole usage: a mistyped command gets a short answer that points to the full one.
  const known = [...new Set(Object.keys(commands).map((command) => command.split(" ")[0]!))].join(", ");
  throw new UsageError(`unknown command "${argv.slice(0, 2).join(" ")}"; the commands are ${known} (stepwiser help lists them with their flags)`);
}

function isNodeArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/**
 * Runs one command line and returns its exit code: 0 done, 1 failed, 2 bad usage
 * or bad input. Every error ends here as one line on stderr naming what is wrong
 * and where, never as a stack trace.
 */
export async function runCommandLine(argv: string[]): Promise<number> {
  const outerExitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    await dispatch(argv);
    return Number(process.exitCode ?? 0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`stepwiser: ${message}\n`);
    if (error instanceof RemoteApiError || error instanceof RemoteConnectionError) return error.exitCode;
    return error instanceof UsageError || error instanceof InputError || isNodeArgumentError(error) ? 2 : 1;
  } finally {
    process.exitCode = outerExitCode;
  }
}
