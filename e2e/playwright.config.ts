import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";

/**
 * Browser tests against the built app, started the way `npm start` starts it
 * (launcher: embedded Postgres, migrations, first admin, worker, `next start`),
 * on a fresh data directory, in Debian's Chromium.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.STEPWISER_E2E_PORT ?? 3917);
export const ADMIN_EMAIL = "admin@e2e.test";
export const ADMIN_PASSWORD = process.env.STEPWISER_E2E_ADMIN_PASSWORD ?? "e2e-admin-password";

// Set once in the main process; workers inherit it instead of making their own.
process.env.STEPWISER_E2E_DATA_DIR ??= (() => {
  const dir = mkdtempSync(path.join(tmpdir(), "stepwiser-e2e-"));
  chmodSync(dir, 0o755);
  return path.join(dir, "data");
})();

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"]],
  // What a first start shows is checked before any other spec adds runs, labels or members to the demo's data.
  projects: [
    { name: "first-start", testMatch: /first-start\.spec\.ts$/ },
    { name: "workbench", testIgnore: /first-start\.spec\.ts$/, dependencies: ["first-start"] },
  ],
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: "node --import tsx apps/launcher/src/main.ts",
    cwd: repoRoot,
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    env: {
      STEPWISER_DATA_DIR: process.env.STEPWISER_E2E_DATA_DIR,
      PORT: String(port),
      STEPWISER_PUBLIC_URL: `http://localhost:${port}`,
      STEPWISER_ADMIN_EMAIL: ADMIN_EMAIL,
      STEPWISER_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // Only the small simulated-world demo (annotate + two judge runs), which the inspector test reads.
      STEPWISER_DEMO_DATA: "sim",
      // The simulated GPUs four times as fast: the runs the tests wait for take a quarter of the time.
      STEPWISER_SIM_TIME_SCALE: "4",
      NEXT_TELEMETRY_DISABLED: "1",
      // Every test signs in its people from one address, several per test: more than a person would in a minute.
      STEPWISER_SIGN_IN_PER_MINUTE: "200",
    },
  },
});
