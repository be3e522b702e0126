import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { fromUserCwd } from "../paths";
import { UsageError } from "../usage-error";

/** The absolute path of a file named on the command line, checked to be a readable file before any work starts. */
export async function readableFile(given: string): Promise<string> {
  const file = fromUserCwd(given);
  const info = await stat(file).catch(() => null);
  if (!info) throw new UsageError(`cannot read ${given}: no such file`);
  if (!info.isFile()) throw new UsageError(`cannot read ${given}: not a file`);
  return file;
}

/** A JSON-lines output: the named file, or stdout without one. */
export function lineOutput(given: string | undefined): NodeJS.WritableStream {
  return given ? createWriteStream(fromUserCwd(given)) : process.stdout;
}

/** Writes one line, waiting while the reader is slower than the writer, so a large output never piles up in memory. */
export async function writeLine(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(`${text}\n`)) await once(out, "drain");
}

/** Writes bytes as they are (e.g. a stored file's parts), with the same back-pressure. */
export async function writeBytes(out: NodeJS.WritableStream, bytes: Uint8Array): Promise<void> {
  if (!out.write(bytes)) await once(out, "drain");
}

/** Ends a file output once everything is on disk; stdout stays open for the process's own output. */
export async function closeLineOutput(out: NodeJS.WritableStream): Promise<void> {
  if (out === process.stdout) return;
  await new Promise<void>((resolve, reject) => {
    out.once("error", reject);
    out.end(() => resolve());
  });
}
