import { spawnSync } from "node:child_process";
import { readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `pnpm bench [--quick] [filter]`: runs every `{apps,packages}/<name>/bench/*.bench.ts`
 * in its own process (so one benchmark's warm caches never help another). Each writes
 * its numbers to docs/benchmarks/ (the full profile: release numbers) or, with
 * `--quick`, to docs/benchmarks/quick/ (every benchmark at reduced size, about
 * 15 minutes in all on 2 cores; see `atProfile` in report.ts).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const unknown = args.filter((arg) => arg.startsWith("-") && arg !== "--quick");
if (unknown.length > 0) {
  console.error(`unknown option ${unknown.join(", ")} (usage: pnpm bench [--quick] [filter])`);
  process.exit(2);
}
const filter = args.find((arg) => !arg.startsWith("-"));
const profile = quick ? "quick" : "full";

const files: string[] = [];
for (const top of ["apps", "packages"]) {
  for (const name of readdirSync(path.join(root, top))) {
    const dir = path.join(root, top, name, "bench");
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) if (file.endsWith(".bench.ts")) files.push(path.join(dir, file));
  }
}
const selected = files.filter((f) => !filter || f.includes(filter)).sort();
if (selected.length === 0) {
  console.error(`no benchmark matches ${filter ?? "(any)"}`);
  process.exit(2);
}

const outcomes: string[] = [];
const startedAll = performance.now();
for (const file of selected) {
  const name = path.relative(root, file);
  console.error(`» ${name}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", file], { cwd: root, stdio: "inherit", env: { ...process.env, STEPWISER_BENCH_PROFILE: profile } });
  const seconds = (performance.now() - started) / 1000;
  outcomes.push(`${result.status === 0 ? "ok    " : "MISSED"} ${name} (${seconds.toFixed(0)} s)`);
}
console.error(`\n${outcomes.join("\n")}\nall benchmarks (${profile} profile): ${((performance.now() - startedAll) / 1000).toFixed(0)} s`);
process.exit(outcomes.some((o) => o.startsWith("MISSED")) ? 1 : 0);
