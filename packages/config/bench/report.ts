import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

/**
 * Which profile a benchmark runs at: "full" (the release numbers, docs/benchmarks/)
 * or "quick" (`pnpm bench --quick`: every benchmark at reduced size, to re-measure a
 * change while making it; its pages go to docs/benchmarks/quick/). run-benchmarks
 * sets STEPWISER_BENCH_PROFILE for each benchmark it starts.
 */
export type BenchProfile = "full" | "quick";

export function benchProfile(): BenchProfile {
  const value = process.env.STEPWISER_BENCH_PROFILE ?? "full";
  if (value !== "full" && value !== "quick") throw new Error(`STEPWISER_BENCH_PROFILE must be "full" or "quick", not "${value}"`);
  return value;
}

/** The value for the current profile: `atProfile({ full: 100_000, quick: 5_000 })`. */
export function atProfile<T>(sizes: { full: T; quick: T }): T {
  return sizes[benchProfile()];
}

const PROFILE_LINES: Record<BenchProfile, string> = {
  full: "Profile: **full** (`pnpm bench`), the release numbers.",
  quick: "Profile: **quick** (`pnpm bench --quick`): reduced sizes, to compare a change with the code before it on the same machine; not release numbers.",
};

/** Headings the generator writes itself; every other `## ` section of a page is hand-written. */
const GENERATED_SECTIONS = new Set(["Limits"]);

/**
 * The hand-written sections of an existing page (a `## ` heading the generator does
 * not write, through to the next `## ` heading or the end), in order, so that
 * regenerating a page keeps them after the new table.
 */
export function handWrittenSections(page: string): string[] {
  const sections: string[] = [];
  const parts = page.split(/^(?=## )/m);
  for (const part of parts.slice(1)) {
    const heading = /^## (.*)$/m.exec(part)![1]!.trim();
    // The generator's own last line, where a section was written above it, is written anew.
    const text = part.replace(/^Regenerate with `corepack pnpm bench [^`]*`\.\n?/gm, "").trimEnd();
    if (!GENERATED_SECTIONS.has(heading)) sections.push(text);
  }
  return sections;
}

function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${availableParallelism()} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** The report's page: title, method, limits (when given), where and when it was measured, the table, how to regenerate it. */
export function benchmarkMarkdown(report: BenchmarkReport, measuredAt: string, measuredOn: string, options: { profile?: BenchProfile; handWritten?: readonly string[] } = {}): string {
  const table = [
    "| metric | value | target | met |",
    "|---|---|---|---|",
    ...report.rows.map((r) => `| ${r.metric} | ${r.value} | ${r.target ?? "—"} | ${r.met === undefined ? "—" : r.met ? "yes" : "**no**"} |`),
  ].join("\n");
  const limits = report.limits === undefined ? "" : `## Limits\n\n${report.limits}\n\n`;
  const profile = options.profile ?? "full";
  const regenerate = `Regenerate with \`corepack pnpm bench ${profile === "quick" ? "--quick " : ""}${report.bench ?? report.name}\`.`;
  const kept = (options.handWritten ?? []).map((section) => `\n${section}\n`).join("");
  return `# ${report.title}\n\n${report.method}\n\n${limits}${PROFILE_LINES[profile]} Measured ${measuredAt} on ${measuredOn}.\n\n${table}\n\n${regenerate}\n${kept}`;
}

/** Writes docs/benchmarks/<name>.md and .json; fails the process when a target is missed. */
export function writeBenchmarkReport(report: BenchmarkReport): void {
  const profile = benchProfile();
  const dir = path.join(root, "docs", "benchmarks", ...(profile === "quick" ? ["quick"] : []));
  mkdirSync(dir, { recursive: true });
  const measuredAt = new Date().toISOString();
  const pagePath = path.join(dir, `${report.name}.md`);
  const handWritten = existsSync(pagePath) ? handWrittenSections(readFileSync(pagePath, "utf8")) : [];
  const markdown = benchmarkMarkdown(report, measuredAt, machine(), { profile, handWritten });
  writeFileSync(pagePath, markdown);
  writeFileSync(path.join(dir, `${report.name}.json`), `${JSON.stringify({ ...report, profile, measuredAt, machine: machine() }, null, 2)}\n`);
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
