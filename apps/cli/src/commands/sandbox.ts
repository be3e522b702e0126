import { readInputText } from "../input/files";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

/** Loaded on use: the sandbox lives in the jobs package, whose other modules these commands do not need at start-up. */
async function sandboxModule() {
  return import("@stepwiser/jobs");
}

function numberFlag(name: string, given: string | undefined, minimum: number, maximum: number): number | undefined {
  if (given === undefined) return undefined;
  const value = Number(given);
  if (given.trim() === "" || !Number.isFinite(value) || value < minimum || value > maximum) {
    throw new UsageError(`--${name} must be a number from ${minimum} to ${maximum}, got "${given}"`);
  }
  return value;
}

/**
 * `stepwiser sandbox run --file F [--timeout-s N] [--memory-mb M]`: one python block through the sandbox GenPRM's
 * code execution uses, printed as one JSON object `{stdout, stderr, exitCode, timedOut}`. Exit 0 whenever the
 * sandbox ran the block, whatever the block did; 1 when this machine refuses code execution.
 */
export async function sandboxRunCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("sandbox run", { args, options: { file: { type: "string" }, "timeout-s": { type: "string" }, "memory-mb": { type: "string" } } });
  if (!values.file) throw new UsageError("--file is required (a python block; - for stdin)");
  const timeoutSeconds = numberFlag("timeout-s", values["timeout-s"], 0.1, 60);
  const memoryMb = numberFlag("memory-mb", values["memory-mb"], 32, 8192);
  if (memoryMb !== undefined && !Number.isInteger(memoryMb)) throw new UsageError(`--memory-mb must be a whole number, got "${values["memory-mb"]}"`);
  const code = await readInputText(values.file);
  const { runPythonSandboxed, sandboxAvailability, sandboxLimitsSchema } = await sandboxModule();
  const availability = await sandboxAvailability();
  if (!availability.available) throw new Error(`code execution is refused on this machine: ${availability.reason}`);
  // A longer wall time brings the CPU limit along, so that the time limit given is the one that applies.
  const limits = sandboxLimitsSchema.parse({
    ...(timeoutSeconds === undefined ? {} : { timeLimitMs: Math.round(timeoutSeconds * 1000), cpuSeconds: Math.max(5, Math.ceil(timeoutSeconds)) }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
  });
  const result = await runPythonSandboxed(code, limits);
  if (result.status === "refused") throw new Error(`code execution is refused: ${result.stderr}`);
  process.stdout.write(`${JSON.stringify({ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, timedOut: result.status === "timeout" })}\n`);
}

/**
 * `stepwiser sandbox check`: the isolation code blocks run under on this machine, verified by running a probe
 * block, as one JSON object; when it is refused, the reason (stdout `{available: false, reason}`, and on stderr)
 * and exit 1.
 */
export async function sandboxCheckCommand(args: string[]): Promise<void> {
  parseFlags("sandbox check", { args, options: {} });
  const { sandboxAvailability, sandboxBudget } = await sandboxModule();
  const availability = await sandboxAvailability();
  if (!availability.available) {
    process.stdout.write(`${JSON.stringify({ available: false, reason: availability.reason })}\n`);
    throw new Error(`code execution is refused on this machine: ${availability.reason}`);
  }
  let budget: unknown;
  try {
    budget = sandboxBudget();
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ available: false, reason: (error as Error).message })}\n`);
    throw error;
  }
  process.stdout.write(`${JSON.stringify({ available: true, ...availability.isolation, budget })}\n`);
}
