import { Readable } from "node:stream";
import { runCommandLine } from "../src/cli";
import type { CliResult } from "./run-cli";

type Write = typeof process.stdout.write;

function capture(stream: NodeJS.WriteStream, sink: { text: string }): () => void {
  const original = stream.write;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    sink.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    const callback = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    callback?.();
    return true;
  }) as Write;
  return () => {
    stream.write = original;
  };
}

/**
 * Runs `stepwiser <args>` through the command line's own entry point inside this
 * process, capturing stdout and stderr: the same dispatch and error handling as
 * the executable, without a Node start-up per case. Calls must not overlap.
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}, options: { stdin?: string } = {}): Promise<CliResult> {
  const stdout = { text: "" };
  const stderr = { text: "" };
  const previousEnv = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  const restoreOut = capture(process.stdout, stdout);
  const restoreErr = capture(process.stderr, stderr);
  // `--file -` reads process.stdin: give it the text, as a pipe would, for this call only.
  const stdinProperty = Object.getOwnPropertyDescriptor(process, "stdin");
  if (options.stdin !== undefined) {
    Object.defineProperty(process, "stdin", { value: Readable.from([Buffer.from(options.stdin)]), configurable: true, writable: true });
  }
  try {
    const code = await runCommandLine(args);
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    if (options.stdin !== undefined && stdinProperty) Object.defineProperty(process, "stdin", stdinProperty);
    restoreOut();
    restoreErr();
    for (const [key, value] of Object.entries(previousEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
