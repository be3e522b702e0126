import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `npm test`: every test, in the order that fails fastest. Lint (ESLint with
 * typescript-eslint, React hooks and Next's rules; no warnings allowed) and the
 * type check (`tsc -b` over the workspace's project references), side by side on
 * two cores; the production build; then the unit and integration tests (one
 * Vitest run of both projects, which ends with the slowest files) beside the
 * launcher's smoke check on the machine's own Node followed by the browser tests
 * against the build (Playwright + Debian's Chromium). The browser tests mostly
 * wait (on pages, runs and polls: about a fifth of the two cores), so they share
 * the machine with Vitest instead of running after it (docs/DECISIONS.md, "Test
 * tiers"). Each stage's time is printed as it ends and again in the summary;
 * stages run side by side have their output printed, stage by stage, once all of
 * them have ended.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

interface Stage {
  name: string;
  command: string;
  args: string[];
}

const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const lint: Stage = { name: "lint", command: bin("eslint"), args: [".", "--max-warnings=0"] };
const typeCheck: Stage = { name: "type check", command: bin("tsc"), args: ["-b", "--pretty"] };
const unitAndIntegration: Stage = { name: "unit and integration tests", command: bin("vitest"), args: ["run", "--config", "packages/config/vitest.config.ts"] };
const build: Stage = { name: "production build", command: bin("turbo"), args: ["run", "build", "--output-logs=errors-only"] };
const smoke: Stage = { name: "launcher smoke (npm start on the machine's Node)", command: process.execPath, args: ["--import", "tsx", "apps/launcher/smoke/start-smoke.ts"] };
const browser: Stage = { name: "browser tests", command: bin("playwright"), args: ["test", "--config", "e2e/playwright.config.ts"] };

/**
 * Steps run one after the other; a step's lanes run side by side, each lane's
 * stages one after the other (a lane stops at its first failure). The next step
 * starts when every lane of this one has ended, and only if all passed.
 */
const plan: Stage[][][] = [[[lint], [typeCheck]], [[build]], [[unitAndIntegration], [smoke, browser]]];

const only = process.argv.slice(2);
const chosen = (stage: Stage) => only.length === 0 || only.some((o) => stage.name.includes(o));
const steps = plan.map((lanes) => lanes.map((lane) => lane.filter(chosen)).filter((lane) => lane.length > 0)).filter((lanes) => lanes.length > 0);

if (steps.flat(2).some((s) => s === browser) && !existsSync(chromium)) {
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

/** Runs one lane's stages in order, output kept; stops at the first that fails. */
async function runLane(lane: Stage[]): Promise<Array<{ stage: Stage; ok: boolean; seconds: number; output: string }>> {
  const ended = [];
  for (const stage of lane) {
    const result = await runCaptured(stage);
    ended.push({ stage, ...result });
    if (!result.ok) break;
  }
  return ended;
}

for (const lanes of steps) {
  if (lanes.length === 1 && lanes[0]!.length === 1) {
    const stage = lanes[0]![0]!;
    console.error(`\n━━ ${stage.name}`);
    const started = Date.now();
    const result = spawnSync(stage.command, stage.args, { cwd: root, stdio: "inherit", env: process.env });
    const ok = result.status === 0;
    const seconds = (Date.now() - started) / 1000;
    results.push({ name: stage.name, ok, seconds });
    console.error(`━━ ${stage.name}: ${ok ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
    if (!ok) break;
    continue;
  }
  console.error(`\n━━ ${lanes.map((lane) => lane.map((stage) => stage.name).join(" → ")).join(" + ")} (side by side)`);
  const ended = (await Promise.all(lanes.map(runLane))).flat();
  for (const { stage, ok, seconds, output } of ended) {
    console.error(`\n━━ ${stage.name}`);
    if (output) process.stderr.write(output.endsWith("\n") ? output : `${output}\n`);
    results.push({ name: stage.name, ok, seconds });
    console.error(`━━ ${stage.name}: ${ok ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
  }
  if (ended.some((r) => !r.ok) || ended.length < lanes.flat().length) break;
}

console.error("\n━━ summary");
for (const r of results) console.error(`${r.ok ? "✔" : "✖"} ${r.name} (${r.seconds.toFixed(1)} s)`);
console.error(`  all stages: ${((Date.now() - startedAll) / 1000).toFixed(1)} s (wall time; stages side by side as planned)`);
const failed = results.some((r) => !r.ok) || results.length < steps.flat(2).length;
process.exit(failed ? 1 : 0);
