import { runCommandLine } from "./cli";

/** process.exit drops output still queued on a pipe (a reader slower than us): exit once stdout is flushed. */
function exitAfterStdout(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

// runCommandLine never rejects: every failure is an exit code.
void runCommandLine(process.argv.slice(2)).then(exitAfterStdout);
