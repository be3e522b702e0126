import { readFile } from "node:fs/promises";
import { UsageError } from "../usage-error";
import { fromUserCwd } from "../paths";

/** Reads a file named on the command line (relative to the user's directory); "-" is stdin. */
export async function readInputText(given: string): Promise<string> {
  if (given === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(fromUserCwd(given), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${given}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (error as Error).message}`);
  }
}

/** Reads and parses a JSON file named on the command line; bad JSON is a usage error naming the file. */
export async function readInputJson(given: string): Promise<unknown> {
  const text = await readInputText(given);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${given}: not valid JSON (${(error as Error).message})`);
  }
}
