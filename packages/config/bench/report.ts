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
  rows: BenchmarkRow[];
  /** Filter that selects its benchmark file in `pnpm bench <filter>`; defaults to `name`. */
  bench?: string;
}

function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${availableParallelism()} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** Writes docs/benchmarks/<name>.md and .json; fails the process when a target is missed. */
export function writeBenchmarkReport(report: BenchmarkReport): void {
  const dir = path.join(root, "docs", "benchmarks");
  mkdirSync(dir, { recursive: true });
  const measuredAt = new Date().toISOString();
  const table = [
    "| metric | value | target | met |",
    "|---|---|---|---|",
    ...report.rows.map((r) => `| ${r.metric} | ${r.value} | ${r.target ?? "—"} | ${r.met === undefined ? "—" : r.met ? "yes" : "**no**"} |`),
  ].join("\n");
  const markdown = `# ${report.title}\n\n${report.method}\n\nMeasured ${measuredAt} on ${machine()}.\n\n${table}\n\nRegenerate with \`corepack pnpm bench ${report.bench ?? report.name}\`.\n`;
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
