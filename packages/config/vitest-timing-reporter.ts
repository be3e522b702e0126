import type { Reporter, TestModule } from "vitest/node";

/** A default-tier test file taking longer than this is a defect: its scale belongs in `pnpm bench`. */
export const SLOW_FILE_SECONDS = 60;
const SHOWN = 15;

/** A file's wall time: importing it and everything it loads, then its tests and hooks. */
function fileSeconds(module: TestModule): number {
  const diagnostic = module.diagnostic();
  return (diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.prepareDuration + diagnostic.environmentSetupDuration + diagnostic.duration) / 1000;
}

/**
 * Prints, after the run, the slowest test files with their times, and a warning
 * (never a failure: a slow machine must not fail CI) for each default-tier file
 * over SLOW_FILE_SECONDS.
 */
export default class TimingReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => ({ file: module.relativeModuleId, project: module.project.name, seconds: fileSeconds(module) }))
      .sort((a, b) => b.seconds - a.seconds);
    if (rows.length === 0) return;
    const total = rows.reduce((sum, row) => sum + row.seconds, 0);
    const lines = [`\n━━ the ${Math.min(SHOWN, rows.length)} slowest of ${rows.length} test files (${total.toFixed(0)} s of file time in all)`];
    for (const row of rows.slice(0, SHOWN)) lines.push(`${row.seconds.toFixed(1).padStart(7)} s  ${row.file}${row.project ? `  [${row.project}]` : ""}`);
    for (const row of rows.filter((each) => each.seconds > SLOW_FILE_SECONDS)) {
      lines.push(`⚠ ${row.file} took ${row.seconds.toFixed(0)} s, over the ${SLOW_FILE_SECONDS} s a default-tier test file may take: prove the property smaller and move the scale to \`pnpm bench\``);
    }
    process.stderr.write(`${lines.join("\n")}\n`);
  }
}
