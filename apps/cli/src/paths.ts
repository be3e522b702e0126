import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Paths given on the command line are relative to where the user ran the command. */
export function fromUserCwd(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}
