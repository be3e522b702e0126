import { readFile } from "node:fs/promises";
import { InputError, parseJsonAt } from "@stepwiser/core";
import { UsageError } from "../usage-error";
import { fromUserCwd } from "../paths";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Line (1-based) of the first byte sequence that is not UTF-8, found by decoding line by line. */
function firstUndecodableLine(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        strictUtf8.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line += 1;
      start = i + 1;
    }
  }
  return line;
}

/**
 * The file's text. Bytes that are not UTF-8 are refused with their line rather
 * than replaced: a silently altered solution or config would be stored as if it
 * were what the user wrote.
 */
function decodeText(bytes: Uint8Array, name: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new InputError("not valid UTF-8 text (a binary file?)", { file: name, line: firstUndecodableLine(bytes) });
  }
}

async function readInputBytes(given: string): Promise<Uint8Array> {
  if (given === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(fromUserCwd(given));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${given}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (error as Error).message}`);
  }
}

/** Reads a UTF-8 text file named on the command line (relative to the user's directory); "-" is stdin. */
export async function readInputText(given: string): Promise<string> {
  return decodeText(await readInputBytes(given), given === "-" ? "stdin" : given);
}

/** Reads and parses a JSON file named on the command line; bad JSON is reported with the file and line. */
export async function readInputJson(given: string): Promise<unknown> {
  const text = await readInputText(given);
  const name = given === "-" ? "stdin" : given;
  if (text.trim() === "") throw new InputError("the file is empty (expected a JSON object)", { file: name, line: 1 });
  return parseJsonAt({ line: 1, text }, name);
}
