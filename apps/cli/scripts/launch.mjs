// Runs the built command line (apps/cli/dist) in this process, building it first
// when it is missing or older than its sources. Used by bin/stepwiser and by the
// launcher's `cli` mode. Plain JavaScript: nothing is compiled at run time.
import { pathToFileURL } from "node:url";
import path from "node:path";
import { buildCli, buildIsCurrent, distDir } from "./build.mjs";

/** Runs `stepwiser <argv>` and exits with its code once stdout is flushed. */
export async function runBuiltCli(argv) {
  if (!buildIsCurrent()) await buildCli({ quiet: true });
  const { runCommandLine } = await import(pathToFileURL(path.join(distDir, "cli.js")).href);
  const code = await runCommandLine(argv);
  // process.exit drops output still queued on a pipe (a reader slower than us): exit once stdout is flushed.
  process.stdout.write("", () => process.exit(code));
}
