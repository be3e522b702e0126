import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkFile, checkManifest, checkRepository, formatViolation } from "../layering/check-layering";

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

  it("allows imports in the permitted direction", () => {
    const text = 'import { createDb } from "@stepwiser/db";\nimport { readProcessBenchFile } from "@stepwiser/core";\n';
    expect(checkFile({ path: "packages/jobs/src/x.ts", text })).toEqual([]);
  });
});
