import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { repoRoot, runCli } from "./run-cli";

const fixtures = path.join(repoRoot, "packages/core/test/fixtures/imports");

/** Math-Shepherd marks the end of every step with "ки". */
const tagsIn = (text: string) => text.split("ки").length - 1;

describe("stepwiser import <format> and stepwiser export", () => {
  let database: TestDatabase;
  let scratch: string;
  /** The verl export's train.parquet and its row count, once the export test has written it. */
  let verl: { file: string; rows: number } | null = null;
  const cli = (args: string[]) => runCliInProcess(args, { DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-io-"));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("imports PRM800K with its ratings, then the same file again is recognised and skipped", async () => {
    const file = path.join(fixtures, "prm800k-phase2.jsonl");
    const first = await cli(["import", "prm800k", file, "--name", "PRM800K sample"]);
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as { runs: Array<{ status: string; written: number; datasetId: string }> };
    expect(summary.runs[0]).toMatchObject({ status: "completed", written: 3 });
    expect(await database.db.humanLabel.count({ where: { source: "imported" } })).toBeGreaterThan(0);

    const again = await cli(["import", "prm800k", file]);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as { runs: Array<{ written: number; datasetId: string; duplicateOfRunId?: string }> };
    expect(second.runs[0]).toMatchObject({ written: 0, datasetId: summary.runs[0]!.datasetId });
    expect(second.runs[0]!.duplicateOfRunId).toBeDefined();
  });

  it("generic JSONL: --preview shows records as mapped without importing; a bad mapping key is a usage error", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ q: `What is ${i}+1?`, s: [`${i}+1`, `= ${i + 1}`], l: [true, i % 2 === 0] }));
    lines[4] = "{not json";
    const file = path.join(scratch, "generic.jsonl");
    await writeFile(file, `${lines.join("\n")}\n`);
    const before = await database.db.solution.count();
    const preview = await cli(["import", "jsonl", file, "--map", "problem=q,steps=s,labels=l", "--preview"]);
    expect(preview.code, preview.stderr).toBe(0);
    const rows = (JSON.parse(preview.stdout) as { previews: Array<{ rows: Array<{ line: number; error?: string; solution?: { steps: string[] } }> }> }).previews[0]!.rows;
    expect(rows).toHaveLength(20);
    expect(rows[4]).toMatchObject({ line: 5 });
    expect(rows[4]!.error).toMatch(/not valid JSON/);
    expect(rows[0]!.solution!.steps).toEqual(["0+1", "= 1"]);
    expect(await database.db.solution.count()).toBe(before);

    // As the executable: a bad mapping key exits 2 before any job, as a shell sees it.
    const refused = await runCli(["import", "jsonl", file, "--map", "problem=q,stepz=s"], { env: { DATABASE_URL: database.url } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("stepz");

    const bad = await cli(["import", "jsonl", file, "--map", "problem=q,steps=s,labels=l"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("generic.jsonl:5");
    expect(await database.db.solution.count()).toBe(before);
  });

  it("exports a verl training set and the labels of a Math-Shepherd import", async () => {
    // From here on the database has an admin: the command line's imports and exports are theirs.
    const admin = await database.db.user.create({ data: { id: "admin-cli-io", email: "admin@cli-io.test", name: "Admin", role: "admin" } });
    const imported = await cli(["import", "math-shepherd", path.join(fixtures, "math-shepherd.jsonl")]);
    expect(imported.code, imported.stderr).toBe(0);
    const runId = (JSON.parse(imported.stdout) as { runs: Array<{ runId: string }> }).runs[0]!.runId;
    expect((await database.db.run.findUniqueOrThrow({ where: { id: runId } })).createdById).toBe(admin.id);

    const out = path.join(scratch, "verl");
    const exported = await cli(["export", "training-set", "--run", runId, "--rule", "abs-q", "--format", "verl", "--held-out", "0", "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const result = JSON.parse(exported.stdout) as { status: string; files: Array<{ fileName: string; sizeBytes: number }> };
    expect(result.status).toBe("completed");
    expect((await readdir(out)).sort()).toEqual(result.files.map((f) => f.fileName).sort());
    expect(result.files.map((f) => f.fileName)).toEqual(expect.arrayContaining(["train.parquet", "reward.py", "manifest.json"]));
    expect((await database.db.run.findFirstOrThrow({ where: { kind: "export" }, orderBy: { createdAt: "desc" } })).createdById).toBe(admin.id);
    const manifest = JSON.parse(await readFile(path.join(out, "manifest.json"), "utf8")) as { splits: { train: { after: { positive: number; negative: number } } } };
    expect(manifest.splits.train.after.positive).toBe(manifest.splits.train.after.negative);
    expect((await readFile(path.join(out, "train.parquet"))).subarray(0, 4).toString("latin1")).toBe("PAR1");
    verl = { file: path.join(out, "train.parquet"), rows: manifest.splits.train.after.positive + manifest.splits.train.after.negative };

    // Imported labels carry no confidence: --min-confidence would leave every row out, so it is refused before any job runs.
    const confident = await cli(["export", "training-set", "--run", runId, "--rule", "abs-q", "--min-confidence", "0.9", "--out", path.join(scratch, "confident")]);
    expect(confident.code, confident.stderr).toBe(2);
    expect(confident.stderr).toContain("minConfidence");
    expect(confident.stderr).toContain("stored no label confidence under abs-q(evidence=own-prefix)");

    // TRL stepwise supervision: one row per solution, in Parquet and JSONL, with the dataset card beside it.
    const prmOut = path.join(scratch, "trl-prm");
    const prm = await cli(["export", "training-set", "--run", runId, "--rule", "abs-q", "--format", "trl-prm", "--held-out", "0", "--out", prmOut]);
    expect(prm.code, prm.stderr).toBe(0);
    expect((await readdir(prmOut)).sort()).toEqual(["README.md", "manifest.json", "requirements.txt", "test.jsonl", "test.parquet", "train.jsonl", "train.parquet"]);
    expect((await readFile(path.join(prmOut, "train.parquet"))).subarray(0, 4).toString("latin1")).toBe("PAR1");
    const prmRows = (await readFile(path.join(prmOut, "train.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { prompt: string; completions: string[]; labels: boolean[] });
    const solutions = (await readFile(path.join(fixtures, "math-shepherd.jsonl"), "utf8")).trim().split("\n").length;
    expect(prmRows).toHaveLength(solutions);
    expect(prmRows.map((row) => row.completions.length)).toEqual(prmRows.map((row) => row.labels.length));
    expect(prmRows.flatMap((row) => row.completions)).toHaveLength(tagsIn(await readFile(path.join(fixtures, "math-shepherd.jsonl"), "utf8")));
    const prmManifest = JSON.parse(await readFile(path.join(prmOut, "manifest.json"), "utf8")) as { format: string; splits: { train: { rows: number } }; launch: { command: string; validation: string } };
    expect(prmManifest).toMatchObject({ format: "trl-prm", splits: { train: { rows: solutions } }, launch: { validation: "off" } });
    expect(prmManifest.launch.command).toContain("examples/scripts/prm.py");
    const card = await readFile(path.join(prmOut, "README.md"), "utf8");
    expect(card).toMatch(/^---\n/);
    expect(card).toContain(`  - split: train\n    path: "train.parquet"\n`);
    expect(card).toContain(`    num_examples: ${solutions}\n`);
    expect(card).not.toContain("split: test");

    const labelsFile = path.join(scratch, "labels.jsonl");
    const labels = await cli(["export", "labels", "--run", runId, "--out", labelsFile]);
    expect(labels.code, labels.stderr).toBe(0);
    const lines = (await readFile(labelsFile, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { labels: Array<{ rule: string; label: string; confidence: number | null }>; text: string });
    const tags = tagsIn(await readFile(path.join(fixtures, "math-shepherd.jsonl"), "utf8"));
    expect(lines).toHaveLength(tags);
    for (const line of lines) expect(line.labels).toEqual([{ rule: "abs-q", params: { evidence: "own-prefix" }, name: "abs-q(evidence=own-prefix)", label: expect.stringMatching(/^(Positive|Negative)$/), confidence: null }]);
  });

  it("imports a Parquet file (the verl export) with --map: preview, a bad row named by its row, then the import", async () => {
    expect(verl, "the verl export test writes train.parquet first").not.toBeNull();
    const { file, rows } = verl!;
    const map = "id=extra_info.index,problem=prompt.0.content,answer=reward_model.ground_truth,text=reward_model.ground_truth,split=lines,subset=extra_info.split";
    const before = await database.db.solution.count();

    const noMap = await cli(["import", "parquet", file]);
    expect(noMap.code).toBe(2);
    expect(noMap.stderr).toContain("import parquet needs --map");

    const preview = await cli(["import", "parquet", file, "--map", map, "--preview"]);
    expect(preview.code, preview.stderr).toBe(0);
    const previewRows = (JSON.parse(preview.stdout) as { previews: Array<{ rows: Array<{ line: number; solution?: { externalId: string; problem: string; steps: string[]; referenceAnswer: string } }> }> }).previews[0]!.rows;
    expect(previewRows).toHaveLength(Math.min(20, rows));
    expect(previewRows.map((r) => r.line)).toEqual(previewRows.map((_, i) => i + 1));
    for (const row of previewRows) {
      expect(row.solution!.externalId).toBe(String(row.line - 1));
      expect(row.solution!.steps).toEqual([row.solution!.referenceAnswer]);
      expect(row.solution!.referenceAnswer).toMatch(/^(Positive|Negative)$/);
      expect(row.solution!.problem).toContain("Step");
    }

    // A mapping that breaks on some row: the file is refused before anything is stored, naming the row and field.
    const bad = await cli(["import", "parquet", file, "--map", `${map},firstError=extra_info.chunk_index`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/train\.parquet:\d+, record \d+, field "extra_info\.chunk_index": expected -1 \(no error\) or a step index 0\.\.0, got \d+ \(mapped to firstError\)/);
    const notParquet = path.join(scratch, "not-parquet.parquet");
    await writeFile(notParquet, '{"problem":"p","steps":["a"]}\n{"problem":"q","steps":["b"]}\n');
    const refused = await cli(["import", "parquet", notParquet, "--map", map]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not-parquet.parquet: not a Parquet file: it does not start with the bytes "PAR1"');
    expect(await database.db.solution.count()).toBe(before);

    const imported = await cli(["import", "parquet", file, "--map", map, "--name", "verl as parquet"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`train.parquet: ${rows} valid records`);
    const result = JSON.parse(imported.stdout) as { runs: Array<{ status: string; written: number; datasetId: string }> };
    expect(result.runs[0]).toMatchObject({ status: "completed", written: rows });
    const solutions = await database.db.solution.findMany({ where: { datasetId: result.runs[0]!.datasetId }, include: { problem: true } });
    expect(solutions).toHaveLength(rows);
    for (const row of previewRows) {
      const t = solutions.find((x) => x.externalId === row.solution!.externalId)!;
      expect(t.problem.text.startsWith(row.solution!.problem.replace(/…$/, ""))).toBe(true);
      expect(t.problem.referenceAnswer).toBe(row.solution!.referenceAnswer);
      expect(t.subset).toBe("train");
    }
  });
});
