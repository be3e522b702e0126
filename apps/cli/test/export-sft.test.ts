import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";

interface Row {
  messages: Array<{ role: string; content: string }>;
  problem_id: string;
  solution_id: string;
  original?: string;
  score?: number;
  candidates?: Array<{ solution_id: string; correct: boolean; score: number | null }>;
}

describe("stepwiser export segmentation-sft | selection", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let scratch: string;
  let segmentRunId: string;
  let judgeRunId: string;
  let allWrongSegmentRunId: string;
  const cli = (args: string[]) => runCliInProcess(args, { DATABASE_URL: database.url });
  const rowsOf = async (dir: string, file: string) => (await readFile(path.join(dir, file), "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Row);

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-sft-"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    endpoints = new EndpointClients();
    const { db } = database;
    await db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    const { datasetId } = await createSimWorldDataset(db, { name: "cli-sft", problems: 6, solutionsPerProblem: 6, seed: 1200, errorRate: 0.3 });
    segmentRunId = (await createAndExecuteRun(db, { kind: "segment", config: { datasetId, method: "blank-line" } }, { endpoints })).id;
    judgeRunId = (await createAndExecuteRun(db, { kind: "judge", config: { datasetId, segmentationMethod: "self-segmented", judgeEndpoint: "judge" } }, { endpoints })).id;
    const wrong = await createSimWorldDataset(db, { name: "cli-sft-wrong", problems: 2, solutionsPerProblem: 2, seed: 1300 });
    await db.solution.updateMany({ where: { datasetId: wrong.datasetId }, data: { finalAnswerCorrect: false } });
    allWrongSegmentRunId = (await createAndExecuteRun(db, { kind: "segment", config: { datasetId: wrong.datasetId, method: "blank-line" } }, { endpoints })).id;
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("segmentation-sft writes the splits, requirements.txt, the dataset card and the manifest; rows reconstruct their original", async () => {
    const out = path.join(scratch, "seg");
    const result = await cli(["export", "segmentation-sft", "--run", segmentRunId, "--out", out, "--format", "trl-sft"]);
    expect(result.code, result.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual(["README.md", "manifest.json", "requirements.txt", "test.jsonl", "train.jsonl"]);
    const manifest = JSON.parse(await readFile(path.join(out, "manifest.json"), "utf8")) as { kind: string; format: string; counts: { rows: number }; maxPerProblem: number; launch: { trainer: string } };
    expect(manifest).toMatchObject({ kind: "segmentation-sft", format: "trl-sft", maxPerProblem: 4, launch: { trainer: "TRL" } });
    const rows = [...(await rowsOf(out, "train.jsonl")), ...(await rowsOf(out, "test.jsonl"))];
    expect(rows).toHaveLength(manifest.counts.rows);
    const perProblem = new Map<string, number>();
    for (const row of rows) {
      expect(row.messages[1]!.content.replaceAll("<chunk>", "").replaceAll("</chunk>", "")).toBe(row.original);
      perProblem.set(row.problem_id, (perProblem.get(row.problem_id) ?? 0) + 1);
    }
    expect(Math.max(...perProblem.values())).toBeLessThanOrEqual(4);
    const limited = await cli(["export", "segmentation-sft", "--run", segmentRunId, "--out", path.join(scratch, "seg1"), "--max-per-problem", "1", "--held-out", "0"]);
    expect(limited.code, limited.stderr).toBe(0);
    expect(new Set((await rowsOf(path.join(scratch, "seg1"), "train.jsonl")).map((r) => r.problem_id)).size).toBe((await rowsOf(path.join(scratch, "seg1"), "train.jsonl")).length);
  });

  it("selection writes each problem's best-judged correct response; --baseline outcome a seeded random one", async () => {
    const out = path.join(scratch, "sel");
    const result = await cli(["export", "selection", "--run", judgeRunId, "--aggregate", "min", "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const rows = await rowsOf(out, "train.jsonl");
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const competing = row.candidates!.filter((c) => c.correct && c.score !== null);
      expect(row.score).toBe(Math.max(...competing.map((c) => c.score!)));
      expect(row.solution_id).toBe(competing.find((c) => c.score === row.score)!.solution_id);
    }
    const manifest = JSON.parse(await readFile(path.join(out, "manifest.json"), "utf8")) as { kind: string; aggregate: string; baseline: string | null };
    expect(manifest).toMatchObject({ kind: "selection", aggregate: "min", baseline: null });
    const baseline = async (dir: string, seed: string) => {
      const run = await cli(["export", "selection", "--run", judgeRunId, "--aggregate", "mean", "--baseline", "outcome", "--seed", seed, "--out", path.join(scratch, dir)]);
      expect(run.code, run.stderr).toBe(0);
      return readFile(path.join(scratch, dir, "train.jsonl"), "utf8");
    };
    expect(await baseline("b1", "7")).toBe(await baseline("b2", "7"));
  });

  it("exits 2 naming the field: a run of the wrong kind, an unknown or missing aggregate, an empty result", async () => {
    const before = await database.db.run.count({ where: { kind: "export" } });
    const wrongKind = await cli(["export", "segmentation-sft", "--run", judgeRunId, "--out", path.join(scratch, "x1")]);
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain('field "runId"');
    expect(wrongKind.stderr).toContain("is a judge run; segmentation-sft reads a segment run");
    const wrongKind2 = await cli(["export", "selection", "--run", segmentRunId, "--aggregate", "mean", "--out", path.join(scratch, "x2")]);
    expect(wrongKind2.code).toBe(2);
    expect(wrongKind2.stderr).toContain('field "runId"');
    const unknown = await cli(["export", "selection", "--run", judgeRunId, "--aggregate", "median", "--out", path.join(scratch, "x3")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--aggregate must be mean, min, last");
    const missing = await cli(["export", "selection", "--run", judgeRunId, "--out", path.join(scratch, "x4")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--aggregate is required");
    const badFormat = await cli(["export", "segmentation-sft", "--run", segmentRunId, "--format", "verl", "--out", path.join(scratch, "x5")]);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain("--format must be chat-jsonl, trl-sft or verl-sft");
    const empty = await cli(["export", "segmentation-sft", "--run", allWrongSegmentRunId, "--out", path.join(scratch, "x6")]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('field "includeIncorrect"');
    expect(await database.db.run.count({ where: { kind: "export" } })).toBe(before);
    for (const dir of ["x1", "x2", "x3", "x4", "x5", "x6"]) await expect(readdir(path.join(scratch, dir))).rejects.toThrow();
  });
});
