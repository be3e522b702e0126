import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findTestFiles } from "../test-files";
import { benchProfile, writeBenchmarkReport, type BenchmarkRow } from "./report";

/**
 * The scale versions of the test suites: every test file that reads its sizes through
 * `atScale` (packages/config/test-scale.ts) run at the sizes `npm test` shrank them
 * from (STEPWISER_TEST_SCALE=full: 100k import records, 1,400 ProcessBench solutions,
 * many kills per run kind), in one Vitest run. The page lists each file's outcome and
 * time and the summary line each reliability suite prints. The quick profile runs the
 * same files at their default (npm test) sizes.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const scale = benchProfile() === "quick" ? "default" : "full";

const files = findTestFiles(root).filter((file) => /\batScale\(/.test(readFileSync(path.join(root, file), "utf8")));

const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-test-scale-"));
const report = path.join(scratch, "vitest.json");
const started = performance.now();
const run = spawnSync(
  path.join(root, "node_modules", ".bin", "vitest"),
  ["run", "--config", "packages/config/vitest.config.ts", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...files],
  { cwd: root, env: { ...process.env, STEPWISER_TEST_SCALE: scale }, encoding: "utf8", maxBuffer: 256 * 2 ** 20 },
);
const seconds = (performance.now() - started) / 1000;
process.stderr.write(run.stderr ?? "");

interface FileResult {
  name: string;
  status: string;
  assertionResults: Array<{ status: string; duration?: number | null }>;
}
const results = existsSync(report) ? (JSON.parse(readFileSync(report, "utf8")) as { testResults: FileResult[] }).testResults : [];
rmSync(scratch, { recursive: true, force: true });

const rows: BenchmarkRow[] = [];
for (const file of files) {
  const result = results.find((r) => path.relative(root, r.name) === file);
  const passed = result?.status === "passed";
  const tests = result?.assertionResults ?? [];
  const testSeconds = tests.reduce((sum, t) => sum + (t.duration ?? 0), 0) / 1000;
  rows.push({
    metric: file,
    value: result ? `${tests.filter((t) => t.status === "passed").length}/${tests.length} tests passed, ${testSeconds.toFixed(0)} s in tests` : "did not run",
    target: "all pass",
    met: passed,
  });
}
// Each reliability suite's own summary line, as it printed it.
// Vitest colours its output even into a pipe: the escape codes are taken out before the lines are matched.
// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const output = `${run.stdout ?? ""}\n${run.stderr ?? ""}`.replace(/\x1b\[[0-9;]*m/g, "");
const summaries = [...new Set(output.split("\n").map((line) => line.trim()).filter((line) => /^(chaos [a-z ]+|bad input \([^)]+\)|role matrix|csrf|imports released|scale-out|crash recovery)[^:]*:/.test(line)))];
for (const line of summaries) {
  const colon = line.indexOf(":");
  rows.push({ metric: line.slice(0, colon), value: line.slice(colon + 1).trim() });
}
rows.push({ metric: "the whole run", value: `${seconds.toFixed(0)} s, exit ${run.status}` });

writeBenchmarkReport({
  name: "test-scale",
  bench: "test-scale",
  title: "Test suites at the scale npm test shrank them from",
  method: `The ${files.length} test files that read their sizes through \`atScale\` (packages/config/test-scale.ts), run in one Vitest run with STEPWISER_TEST_SCALE=${scale}: ${scale === "full" ? "the sizes they had before `npm test` proved each property at the smallest size that proves it (the Math-Shepherd import of 100,000 records, the whole shipped ProcessBench subsets, five kills per run kind, ten kills of an annotate run, 10,000 faulty requests)" : "their default sizes, as `npm test` runs them"}. Each file's outcome and the time its tests took, then the summary line each reliability suite printed.`,
  limits: "Correctness at scale, not speed: the times are one run on a shared 2-core machine, with the simulated cluster, PostgreSQL and the workers on the same cores. The simulated cluster's faults and models say nothing about a real server's.",
  rows,
});
