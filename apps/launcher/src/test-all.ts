import { spawnSync } from "node:child_process";
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
 * Each stage's time is printed as it ends and again in the summary.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

interface Stage {
  name: string;
  command: string;
  args: string[];
}

const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const stages: Stage[] = [
  { name: "lint", command: bin("eslint"), args: [".", "--max-warnings=0"] },
  { name: "type check", command: bin("tsc"), args: ["-b", "--pretty"] },
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

const results: Array<{ name: string; ok: boolean; seconds: number }> = [];
for (const stage of selected) {
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
console.error(`  all stages: ${results.reduce((sum, r) => sum + r.seconds, 0).toFixed(1)} s`);
const failed = results.some((r) => !r.ok) || results.length < selected.length;
process.exit(failed ? 1 : 0);
