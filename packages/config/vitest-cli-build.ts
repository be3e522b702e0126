// Vitest global setup: builds the command line (apps/cli/dist) once before any test
// file runs, when it is missing or stale, so the tests that start `bin/stepwiser`
// as a user would run the current sources and never race to rebuild it.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export default async function setup(): Promise<void> {
  const build = (await import(path.join(root, "apps/cli/scripts/build.mjs"))) as {
    buildIsCurrent(): boolean;
    buildCli(options?: { quiet?: boolean }): Promise<void>;
  };
  if (!build.buildIsCurrent()) await build.buildCli();
}
