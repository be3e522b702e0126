import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkFile, checkManifest, checkRepository, directQueriesOf, formatViolation } from "../layering/check-layering";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("layering: core ← inference ← db ← jobs ← api ← apps", () => {
  it("the repository has no import against the direction", () => {
    expect(checkRepository(repoRoot).map(formatViolation)).toEqual([]);
  });

  it("rejects a reversed import (db importing api)", () => {
    const violations = checkFile({
      path: "packages/db/src/reversed.ts",
      text: 'import { appRouter } from "@stepwiser/api";\n',
    });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ file: "packages/db/src/reversed.ts", line: 1, specifier: "@stepwiser/api" });
  });

  it("rejects reversed imports in every form: type-only, re-export, dynamic, multi-line", () => {
    const text = [
      'import type { Db } from "@stepwiser/db";',
      'export { startWorker } from "@stepwiser/jobs";',
      "const lazy = await import(\"@stepwiser/api\");",
      "import {",
      "  createDb,",
      '} from "@stepwiser/db";',
    ].join("\n");
    const violations = checkFile({ path: "packages/inference/src/x.ts", text });
    expect(violations.map((v) => [v.specifier, v.line])).toEqual([
      ["@stepwiser/db", 1],
      ["@stepwiser/jobs", 2],
      ["@stepwiser/api", 3],
      ["@stepwiser/db", 4],
    ]);
  });

  it("keeps core free of Node I/O and frameworks", () => {
    const text = 'import { readFile } from "node:fs/promises";\nimport path from "path";\nimport { z } from "zod";\nimport React from "react";\nimport { sha256 } from "@noble/hashes/sha2.js";\n';
    const violations = checkFile({ path: "packages/core/src/x.ts", text });
    expect(violations.map((v) => v.specifier)).toEqual(["node:fs/promises", "path", "react"]);
  });

  it("rejects relative imports that reach into another package", () => {
    const violations = checkFile({ path: "packages/api/src/x.ts", text: 'import { x } from "../../jobs/src/index";\n' });
    expect(violations).toHaveLength(1);
  });

  it("rejects one app importing another, and a reversed dependency in package.json", () => {
    expect(checkFile({ path: "apps/worker/src/x.ts", text: 'import "@stepwiser/web";\n' })).toHaveLength(1);
    expect(checkManifest("packages/core/package.json", { dependencies: { "@stepwiser/db": "workspace:*" } })).toHaveLength(1);
  });

  it("rejects a direct database query under apps/cli/src, and allows the same text in the api's services", () => {
    const text = ['import { getRunState } from "@stepwiser/api/services/run";', "", "const run = await db.run.findUnique({ where: { id } });", ""].join("\n");
    const violations = checkFile({ path: "apps/cli/src/commands/x.ts", text });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ file: "apps/cli/src/commands/x.ts", line: 3, specifier: "db.run.findUnique", kind: "query" });
    expect(formatViolation(violations[0]!)).toMatch(/^apps\/cli\/src\/commands\/x\.ts:3: query "db\.run\.findUnique": the command line queries the database only through the API's services/);
    expect(checkFile({ path: "packages/api/src/services/run/x.ts", text })).toEqual([]);
  });

  it("finds every form of direct query in the command line's sources, not in its tests", () => {
    const text = [
      "await db.solution.count({ where: { datasetId } });",
      "await db.storedFile.findFirstOrThrow({ where: {} });",
      "await db.user.updateMany({ data: {} });",
      "await db.$queryRaw`SELECT 1`;",
      "await db.$executeRaw`DELETE FROM x`;",
      "await db.$transaction(async (tx) => tx);",
      "await db.$disconnect();",
      "const first = runs.find((r) => r.ok);",
    ].join("\n");
    const found = directQueriesOf({ path: "apps/cli/src/commands/x.ts", text });
    expect(found.map((v) => [v.specifier, v.line])).toEqual([
      ["db.solution.count", 1],
      ["db.storedFile.findFirstOrThrow", 2],
      ["db.user.updateMany", 3],
      ["$queryRaw", 4],
      ["$executeRaw", 5],
      ["$transaction", 6],
    ]);
    expect(directQueriesOf({ path: "apps/cli/test/x.test.ts", text })).toEqual([]);
  });

  it("inside jobs: the engine knows no kind, a kind no other kind nor the registry", () => {
    const at = (file: string, text: string) => checkFile({ path: `packages/jobs/src/${file}`, text }).map((v) => v.specifier);
    expect(at("runs/engine.ts", 'import { annotateKind } from "../kinds/annotate/kind";\nimport { RUN_KINDS } from "../registry";\nimport { x } from "./run-state";\n')).toEqual(["../kinds/annotate/kind", "../registry"]);
    expect(at("batch/batch-run.ts", 'import { UNIT_RUN_KINDS } from "../registry";\nimport { planUnits } from "../runs/engine";\n')).toEqual(["../registry"]);
    expect(at("kinds/benchmark/kind.ts", 'import { x } from "../judge/kind";\nimport { y } from "../../read-run";\nimport { z } from "../../judging/judge-run";\nimport { w } from "./config";\n')).toEqual(["../judge/kind", "../../read-run"]);
    expect(at("kinds/export/training-set/export.ts", 'import { a } from "../handle";\nimport { b } from "../../../kit/paging";\n')).toEqual([]);
    expect(at("registry.ts", 'import { annotateKind } from "./kinds/annotate/kind";\n')).toEqual([]);
    expect(at("worker/start-worker.ts", 'import { OTHER_RUNS } from "../other-runs";\nimport { executeRun } from "../runs/engine";\n')).toEqual([]);
  });

  it("allows imports in the permitted direction", () => {
    const text = 'import { createDb } from "@stepwiser/db";\nimport { readProcessBenchFile } from "@stepwiser/core";\n';
    expect(checkFile({ path: "packages/jobs/src/x.ts", text })).toEqual([]);
  });
});
