import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `npm test`: every test, in the order that fails fastest. Lint (ESLint with
 * typescript-eslint, React hooks and Next's rules; no warnings allowed), the type
 * check (`tsc -b` over the workspace's project references), the unit and
 * integration tests (one Vitest run of both projects, which ends with the slowest
 * files), the production build, the launcher's smoke check on the machine's own
 * Node, then the browser tests against the build (Playwright + Debian's Chromium).
 * Each stage's time is printed as it ends and again in the summary. Lint and the
 * type check are each one thread, so they run side by side on two cores, their
 * output printed stage by stage once both have ended.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

interface Stage {
  name: string;
  command: string;
  args: string[];
  /** Runs at the same time as the stages next to it that also say so. */
  parallel?: boolean;
}

const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const stages: Stage[] = [
  { name: "lint", command: bin("eslint"), args: [".", "--max-warnings=0"], parallel: true },
  { name: "type check", command: bin("tsc"), args: ["-b", "--pretty"], parallel: true },
  { name: "unit and integration tests", command: bin("vitest"), args: ["run", "--config", "packages/config/vitest.config.ts"] },
  { name: "production build", command: bin("turbo"), args: ["run", "build", "--output-logs=errors-only"] },
  { name: "launcher smoke (npm start on the machine's Node)", command: process.execPath, args: ["--import", "tsx", "apps/launcher/smoke/start-smoke.ts"] },
  { name: "browser tests", command: bin("playwright"), args: ["test", "--config", "e2e/playwright.config.ts"] },
];

const only = process.argv.slice(2);
const selected = only.length ? stages.filter((s) => only.some((o) => s.name.includes(o))) : stages;

if (selected.some((s) => s.name === "browser tests") && !existsSync(chromium)) {
  console.error(`✖ browser tests need Chromium at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  process.exit(1);
}

const startedAll = Date.now();
const results: Array<{ name: string; ok: boolean; seconds: number }> = [];

/** Runs `stage` with its output kept, for stages run side by side. */
function runCaptured(stage: Stage): Promise<{ ok: boolean; seconds: number; output: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(stage.command, stage.args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "1" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", (error) => resolve({ ok: false, seconds: (Date.now() - started) / 1000, output: `${output}${error.message}\n` }));
    child.once("close", (code) => resolve({ ok: code === 0, seconds: (Date.now() - started) / 1000, output }));
  });
}

for (let at = 0; at < selected.length; ) {
  const group = selected[at]!.parallel ? selected.slice(at).filter((stage, i, rest) => rest.slice(0, i + 1).every((s) => s.parallel)) : [selected[at]!];
  at += group.length;
  if (group.length > 1) {
    console.error(`\n━━ ${group.map((stage) => stage.name).join(" + ")} (side by side)`);
    const ended = await Promise.all(group.map(runCaptured));
    group.forEach((stage, i) => {
      const { ok, seconds, output } = ended[i]!;
      console.error(`\n━━ ${stage.name}`);
      if (output) process.stderr.write(output.endsWith("\n") ? output : `${output}\n`);
      results.push({ name: stage.name, ok, seconds });
      console.error(`━━ ${stage.name}: ${ok ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
    });
    if (ended.some((r) => !r.ok)) break;
    continue;
  }
  const stage = group[0]!;
  console.error(`\n━━ ${stage.name}`);
  const started = Date.now();
  const result = spawnSync(stage.command, stage.args, { cwd: root, stdio: "inherit", env: process.env });
  const ok = result.status === 0;
  const seconds = (Date.now() - started) / 1000;
  results.push({ name: stage.name, ok, seconds });
  console.error(`━━ ${stage.name}: ${ok ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
  if (!ok) break;
}

console.error("\n━━ summary");
for (const r of results) console.error(`${r.ok ? "✔" : "✖"} ${r.name} (${r.seconds.toFixed(1)} s)`);
console.error(`  all stages: ${((Date.now() - startedAll) / 1000).toFixed(1)} s (wall time; lint and the type check side by side)`);
const failed = results.some((r) => !r.ok) || results.length < selected.length;
process.exit(failed ? 1 : 0);
