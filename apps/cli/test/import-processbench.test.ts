import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot, runCli } from "./run-cli";

const demoDir = path.join(repoRoot, "packages/db/seed/processbench");

function runImport(args: string[], databaseUrl: string) {
  return runCli(args, { env: { DATABASE_URL: databaseUrl } });
}

describe("stepwiser import processbench", () => {
  let database: TestDatabase;
  let scratch: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-"));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  async function counts() {
    const { db } = database;
    const [datasets, solutions, chunks, runs, storedFiles] = await Promise.all([
      db.dataset.count(),
      db.solution.count(),
      db.chunk.count(),
      db.run.count(),
      db.storedFile.count(),
    ]);
    return { datasets, solutions, chunks, runs, storedFiles };
  }

  it("imports both demo files, 1,400 solutions, and prints a JSON summary", async () => {
    const result = await runImport(
      ["import", "processbench", path.join(demoDir, "gsm8k.json"), path.join(demoDir, "math.json")],
      database.url,
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { runs: Array<{ status: string; solutions: number }>; solutions: number };
    expect(summary.solutions).toBe(1400);
    expect(summary.runs.map((r) => [r.status, r.solutions])).toEqual([
      ["completed", 400],
      ["completed", 1000],
    ]);
    expect(await counts()).toMatchObject({ datasets: 2, solutions: 1400, runs: 2, storedFiles: 2 });
  });

  it("rejects a file with one bad record, naming record and field, and changes nothing", async () => {
    const records = JSON.parse(await readFile(path.join(demoDir, "gsm8k.json"), "utf8")) as Array<Record<string, unknown>>;
    records[17] = { ...records[17], label: 99 }; // past the last step
    const bad = path.join(scratch, "bad.json");
    await writeFile(bad, JSON.stringify(records, null, 2));
    const before = await counts();

    const result = await runImport(["import", "processbench", bad], database.url);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("bad.json:");
    expect(result.stderr).toContain("record 17");
    expect(result.stderr).toContain('field "label"');
    expect(result.stdout).toBe("");
    expect(await counts()).toEqual(before);
  });
});
