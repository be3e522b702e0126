import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { repoRoot } from "./run-cli";

/** One ProcessBench record: the smallest file an import can recognise as imported before. */
const PROCESSBENCH_FILE = path.join(repoRoot, "packages/core/test/fixtures/imports/sniff/processbench.json");

interface ImportedRun {
  runId: string;
  status: string;
  datasetId: string;
  written: number;
  skipped: number;
  notice?: string;
  duplicateOf?: { runId: string; datasetId: string; datasetName: string; importedAt: string };
}

describe("what import and export say when they write less than asked", () => {
  let database: TestDatabase;
  let scratch: string;
  const cli = (args: string[]) => runCliInProcess(args, { DATABASE_URL: database.url });
  const runsOf = (stdout: string) => (JSON.parse(stdout) as { runs: ImportedRun[] }).runs;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-notices-"));
  });
  afterAll(async () => {
    await database?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("a file imported before: the earlier import named on stderr and in the JSON; --name with another name imports it anew", async () => {
    const first = await cli(["import", "processbench", PROCESSBENCH_FILE, "--name", "notices"]);
    expect(first.code, first.stderr).toBe(0);
    const [original] = runsOf(first.stdout);
    expect(original).toMatchObject({ status: "completed", written: 1 });
    expect(original!.notice).toBeUndefined();
    const earlier = await database.db.run.findUniqueOrThrow({ where: { id: original!.runId }, select: { finishedAt: true } });
    const date = `${earlier.finishedAt!.toISOString().slice(0, 16).replace("T", " ")} UTC`;
    const notice =
      `every record of processbench.json is already in dataset "notices" (${original!.datasetId}), imported by run ${original!.runId} on ${date}; nothing imported ` +
      "(--duplicates replace imports the file again into that dataset; --name with another name imports it into a new dataset)";

    // Without --name, and under the dataset's own name: recognised, nothing written, and said so.
    for (const name of [[], ["--name", "notices"]]) {
      const again = await cli(["import", "processbench", PROCESSBENCH_FILE, ...name]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`${notice}\n`);
      const [run] = runsOf(again.stdout);
      expect(run).toMatchObject({ status: "completed", written: 0, datasetId: original!.datasetId, notice });
      expect(run!.duplicateOf).toEqual({ runId: original!.runId, datasetId: original!.datasetId, datasetName: "notices", importedAt: earlier.finishedAt!.toISOString() });
    }

    // --name names a new dataset: under another name the same records are imported into one of their own.
    const copy = await cli(["import", "processbench", PROCESSBENCH_FILE, "--name", "notices copy"]);
    expect(copy.code, copy.stderr).toBe(0);
    const [copied] = runsOf(copy.stdout);
    expect(copied).toMatchObject({ status: "completed", written: 1 });
    expect(copied!.datasetId).not.toBe(original!.datasetId);
    expect(copied!.notice).toBeUndefined();
    expect(await database.db.dataset.findUniqueOrThrow({ where: { id: copied!.datasetId }, select: { name: true } })).toEqual({ name: "notices copy" });

    // Into the dataset itself: each record is found there.
    const into = await cli(["import", "processbench", PROCESSBENCH_FILE, "--dataset", original!.datasetId]);
    expect(into.code, into.stderr).toBe(0);
    const intoNotice = `every record of processbench.json is already in dataset "notices" (${original!.datasetId}); nothing imported (--duplicates replace replaces them)`;
    expect(into.stderr).toContain(`${intoNotice}\n`);
    expect(runsOf(into.stdout)[0]).toMatchObject({ written: 0, skipped: 1, notice: intoNotice });
    expect(await database.db.solution.count()).toBe(2);
  });

  it("a training set whose test split would be empty: a warning on stderr, in the JSON report and in manifest.json", async () => {
    // One problem (three steps, the last one wrong): a held-out split by problem cannot be made.
    const file = path.join(scratch, "one-problem.jsonl");
    const record = {
      input: "What is 2 + 3? Step 1: 2 + 3 = 5. ки\nStep 2: So the sum is 5. ки\nStep 3: The answer is: 6 ки",
      label: "What is 2 + 3? Step 1: 2 + 3 = 5. +\nStep 2: So the sum is 5. +\nStep 3: The answer is: 6 -",
      task: "GSM8K",
    };
    await writeFile(file, `${JSON.stringify(record)}\n`);
    const imported = await cli(["import", "math-shepherd", file]);
    expect(imported.code, imported.stderr).toBe(0);
    const runId = runsOf(imported.stdout)[0]!.runId;

    const out = path.join(scratch, "one-problem-set");
    const exported = await cli(["export", "training-set", "--run", runId, "--rule", "abs-q", "--format", "trl", "--held-out", "0.2", "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const warning =
      "the test split is empty: held-out fraction 0.2 asks for one, but the labels cover 1 problem, and all of a problem's rows go to one split; label more problems, or pass --held-out 0 to export without a test split";
    expect(exported.stderr).toContain(`warning: ${warning}\n`);
    const report = (JSON.parse(exported.stdout) as { report: { warnings?: string[]; splits: { train: { rows: number }; test: { rows: number } } } }).report;
    expect(report.warnings).toEqual([warning]);
    expect(report.splits.train.rows).toBe(2);
    expect(report.splits.test.rows).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(out, "manifest.json"), "utf8")) as { warnings?: string[] };
    expect(manifest.warnings).toEqual([warning]);
  });
});
