import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * One Vitest run for the whole monorepo: unit tests and integration tests on a
 * real PostgreSQL (one embedded server per run, started by the global setup;
 * each test file gets a fresh database cloned from a migrated template).
 */
export default defineConfig({
  root,
  resolve: {
    // The web app's route handlers run in tests as they are: its "~/" imports, and "server-only" as it
    // resolves on the server (the empty module), not as it resolves in a browser bundle (a throw).
    alias: [
      { find: /^~\//, replacement: `${path.join(root, "apps/web/src")}/` },
      { find: /^server-only$/, replacement: path.join(root, "apps/web/node_modules/server-only/empty.js") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    globalSetup: [path.join(root, "packages/db/src/testing/vitest-global-setup.ts")],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
