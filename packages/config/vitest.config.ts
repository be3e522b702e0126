import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { findTestFiles } from "./test-files";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * A test file uses the test PostgreSQL when it asks for the server (`postgresAdminUrl`)
 * or a database made from it, directly or through the harnesses that do.
 * One that uses it without saying so fails at once: outside the integration project
 * `createTestDatabase` has no server and says which project the file belongs to.
 */
const USES_DATABASE = /postgresAdminUrl|createTestDatabase|createWorldDatabase|route-harness|migration-database/;
/**
 * A file that measures its own event loop's delay runs in a process of its own: in a fork shared with other
 * files (`isolate: false`) a collection of their larger heap can pause the loop past what the file bounds.
 */
const MEASURES_EVENT_LOOP = /monitorEventLoopDelay/;
const testFiles = findTestFiles(root);
const source = (file: string) => readFileSync(path.join(root, file), "utf8");
const integrationFiles = testFiles.filter((file) => USES_DATABASE.test(source(file)));
const unitFiles = testFiles.filter((file) => !integrationFiles.includes(file));
const isolatedIntegrationFiles = integrationFiles.filter((file) => MEASURES_EVENT_LOOP.test(source(file)));
const sharedIntegrationFiles = integrationFiles.filter((file) => !isolatedIntegrationFiles.includes(file));

/**
 * One Vitest run for the whole monorepo, in two projects:
 * - `unit`: every test file that needs no database (pure logic, the simulated
 *   cluster over HTTP, subprocesses), started at once;
 * - `integration`: the test files on a real PostgreSQL (one embedded server per
 *   run, started by the global setup; each test file gets a fresh database cloned
 *   from a migrated template, or from the finished simulated world).
 * `--project unit` runs the fast tier alone.
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
    pool: "forks",
    // The files of a fork share its module cache: importing the packages once per fork instead of once per file
    // (a quarter of the run's time when each file imported them afresh). Files restore the environment they change
    // and reset the process-wide handles they point elsewhere (apps/web/test/route-harness.ts); docs/DECISIONS.md.
    isolate: false,
    // Three on two cores: the integration files wait on PostgreSQL and on each other's processes, so a third fork
    // fills the cores (measured: 511 s of wall time, 991 s of CPU, against 572–595 s with two; docs/DECISIONS.md).
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ["default", path.join(root, "packages/config/vitest-timing-reporter.ts")],
    globalSetup: [path.join(root, "packages/config/vitest-cli-build.ts")],
    projects: [
      { extends: true, test: { name: "unit", include: unitFiles } },
      {
        extends: true,
        test: {
          name: "integration",
          include: sharedIntegrationFiles,
          globalSetup: [path.join(root, "packages/db/src/testing/vitest-global-setup.ts")],
        },
      },
      {
        extends: true,
        test: {
          name: "integration-isolated",
          include: isolatedIntegrationFiles,
          isolate: true,
          globalSetup: [path.join(root, "packages/db/src/testing/vitest-global-setup.ts")],
        },
      },
    ],
  },
});
