import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface BenchmarkRow {
  metric: string;
  value: string;
  target?: string;
  /** Whether the value meets the target; omitted when there is no target. */
  met?: boolean;
}

export interface BenchmarkReport {
  /** File name under docs/benchmarks/, without extension. */
  name: string;
  title: string;
  /** What was measured and how, in a sentence or two. */
  method: string;
  /**
   * What the numbers can and cannot show, e.g. what a simulation knows and
   * how its errors arise; rendered as its own "Limits" section after the method.
   */
  limits?: string;
  rows: BenchmarkRow[];
  /** Filter that selects its benchmark file in `pnpm bench <filter>`; defaults to `name`. */
  bench?: string;
}

function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${availableParallelism()} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** The report's page: title, method, limits (when given), where and when it was measured, the table, how to regenerate it. */
export function benchmarkMarkdown(report: BenchmarkReport, measuredAt: string, measuredOn: string): string {
  const table = [
    "| metric | value | target | met |",
    "|---|---|---|---|",
    ...report.rows.map((r) => `| ${r.metric} | ${r.value} | ${r.target ?? "—"} | ${r.met === undefined ? "—" : r.met ? "yes" : "**no**"} |`),
  ].join("\n");
  const limits = report.limits === undefined ? "" : `## Limits\n\n${report.limits}\n\n`;
  return `# ${report.title}\n\n${report.method}\n\n${limits}Measured ${measuredAt} on ${measuredOn}.\n\n${table}\n\nRegenerate with \`corepack pnpm bench ${report.bench ?? report.name}\`.\n`;
}

/** Writes docs/benchmarks/<name>.md and .json; fails the process when a target is missed. */
export function writeBenchmarkReport(report: BenchmarkReport): void {
  const dir = path.join(root, "docs", "benchmarks");
  mkdirSync(dir, { recursive: true });
  const measuredAt = new Date().toISOString();
  const markdown = benchmarkMarkdown(report, measuredAt, machine());
  writeFileSync(path.join(dir, `${report.name}.md`), markdown);
  writeFileSync(path.join(dir, `${report.name}.json`), `${JSON.stringify({ ...report, measuredAt, machine: machine() }, null, 2)}\n`);
  process.stdout.write(`${markdown}\n`);
  const targeted = report.rows.filter((r) => r.met !== undefined);
  const missed = targeted.filter((r) => r.met === false);
  // One line per report, so `pnpm bench` output shows regressions at a glance.
  process.stdout.write(
    targeted.length === 0
      ? `» ${report.name}: measured, no targets set\n`
      : missed.length === 0
      ? `» ${report.name}: all ${targeted.length} targets met\n`
      : `» ${report.name}: ${missed.length} of ${targeted.length} targets missed — ${missed.map((r) => `${r.metric}: ${r.value} (target ${r.target})`).join("; ")}\n`,
  );
  if (missed.length > 0) process.exitCode = 1;
}
