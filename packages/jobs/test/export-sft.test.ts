import { InputError, locateTaggedChunks, parseChunkTags, SELF_SEGMENTING_POLICY_PROMPT_V2 } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkSftLaunch } from "./trainer-launch";
import {
  createSimWorldDataset,
  EndpointClients,
  executeRun,
  exportSegmentationSft,
  exportSelection,
  exportSpecSchema,
  judgeKind,
  OTHER_RUNS,
  segmentKind,
  submitExport,
  UNIT_RUN_KINDS,
  type ExportSpecInput,
} from "../src";

const RUNS = OTHER_RUNS;
const NO_QUEUE = { send: async () => null } as never;

async function finishedRun(db: Db, endpoints: EndpointClients, kind: "segment" | "judge", input: object) {
  const handler = kind === "segment" ? segmentKind : judgeKind;
  const parsed = handler.submitSchema.parse(input);
  const snapshot = await (handler.snapshot as (d: Db, c: typeof parsed) => Promise<object>)(db, parsed);
  const run = await db.run.create({ data: { kind, config: snapshot, datasetId: (parsed as { datasetId: string }).datasetId } });
  await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
  const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
  expect(done.status, done.error ?? "").toBe("completed");
  return done;
}

async function readParquetRows(bytes: Uint8Array): Promise<Array<Record<string, unknown>>> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file })) as Array<Record<string, unknown>>;
}

const text = (file: { content: Uint8Array }) => new TextDecoder().decode(file.content);
const jsonLines = <T>(file: { content: Uint8Array } | undefined) => (file ? text(file).split("\n").filter(Boolean).map((line) => JSON.parse(line) as T) : []);
const fileOf = (files: Array<{ fileName: string; content: Uint8Array }>, name: string) => files.find((f) => f.fileName === name);

interface SftRowRead {
  messages: Array<{ role: string; content: string }>;
  problem_id: string;
  solution_id: string;
  original: string;
  correct: boolean | null;
}
interface SelectionRowRead {
  problem_id: string;
  solution_id: string;
  messages: Array<{ role: string; content: string }>;
  score: number;
  candidates: Array<{ solution_id: string; correct: boolean; score: number | null }>;
}

describe("SFT exports for the policy: segmentation-sft and selection", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;
  let segmentRunId: string;
  let judgeRunId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    const { db } = database;
    await db.endpoint.create({ data: { name: "segmenter", model: "sim-segmenter", role: "segmenter", baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    await db.endpoint.create({ data: { name: "judge", model: "sim-judge-medium", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    endpoints = new EndpointClients();
    // 10 problems × 7 responses: several problems have more than 4 correct responses, some none.
    ({ datasetId } = await createSimWorldDataset(db, { name: "sft", problems: 10, solutionsPerProblem: 7, seed: 900, errorRate: 0.3 }));
    segmentRunId = (await finishedRun(db, endpoints, "segment", { datasetId, method: "llm-segmenter", segmenterEndpoint: "segmenter", seed: 3 })).id;
    judgeRunId = (await finishedRun(db, endpoints, "judge", { datasetId, segmentationMethod: "self-segmented", judgeEndpoint: "judge", seed: 4 })).id;
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("segmentation-sft: every row's chunks reconstruct its original, correct responses only, at most 4 per problem, seeded", async () => {
    const { db } = database;
    const { files, report } = await exportSegmentationSft(db, { runId: segmentRunId, heldOutFraction: 0.2 }, RUNS);
    const rows = [...jsonLines<SftRowRead>(fileOf(files, "train.jsonl")), ...jsonLines<SftRowRead>(fileOf(files, "test.jsonl"))];
    const solutions = await db.solution.findMany({ where: { datasetId }, select: { id: true, problemId: true, text: true, finalAnswerCorrect: true, problem: { select: { text: true } } } });
    const byId = new Map(solutions.map((s) => [s.id, s]));
    const stored = await db.segmentation.findMany({ where: { runId: segmentRunId }, select: { solutionId: true, chunks: { orderBy: { index: "asc" }, select: { text: true } } } });
    const chunksOf = new Map(stored.map((s) => [s.solutionId, s.chunks.map((c) => c.text)]));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(["messages", "problem_id", "solution_id", "original", "correct"]);
      const solution = byId.get(row.solution_id)!;
      expect(row.original).toBe(solution.text);
      expect(row.problem_id).toBe(solution.problemId);
      expect(row.correct).toBe(true);
      expect(solution.finalAnswerCorrect).toBe(true);
      expect(row.messages[0]).toEqual({ role: "user", content: SELF_SEGMENTING_POLICY_PROMPT_V2.text.replace("{problem}", solution.problem.text) });
      expect(row.messages[1]!.role).toBe("assistant");
      const tagged = row.messages[1]!.content;
      // The tagged response gives back exactly the stored chunks, and without its tags exactly the original.
      expect(locateTaggedChunks(row.original, tagged).map((c) => c.text)).toEqual(chunksOf.get(row.solution_id));
      expect(parseChunkTags(tagged).map((c) => c.text)).toEqual(chunksOf.get(row.solution_id));
      expect(tagged.replaceAll("<chunk>", "").replaceAll("</chunk>", "")).toBe(row.original);
    }
    const perProblem = new Map<string, number>();
    for (const row of rows) perProblem.set(row.problem_id, (perProblem.get(row.problem_id) ?? 0) + 1);
    const correctPerProblem = new Map<string, number>();
    for (const s of solutions) if (s.finalAnswerCorrect && chunksOf.has(s.id)) correctPerProblem.set(s.problemId, (correctPerProblem.get(s.problemId) ?? 0) + 1);
    for (const [problemId, correct] of correctPerProblem) expect(perProblem.get(problemId), problemId).toBe(Math.min(4, correct));
    expect([...correctPerProblem.values()].some((n) => n > 4)).toBe(true);
    // The manifest counts what was left out, and the chunk statistics before (blank lines) and after (the segmenter).
    const counts = report.counts as Record<string, number>;
    expect(counts.rows).toBe(rows.length);
    expect(counts.responses).toBe(stored.length);
    expect(counts.incorrect).toBe(stored.filter((s) => byId.get(s.solutionId)!.finalAnswerCorrect !== true).length);
    expect(counts.overLimit).toBe([...correctPerProblem.values()].reduce((n, c) => n + Math.max(0, c - 4), 0));
    expect(counts.problemsWithoutCorrect).toBe(new Set(solutions.map((s) => s.problemId)).size - correctPerProblem.size);
    const stats = report.chunkStats as { before: { method: string; solutions: number }; after: { method: string; solutions: number } };
    expect(stats.before).toMatchObject({ method: "blank-line", solutions: rows.length });
    expect(stats.after).toMatchObject({ method: "llm-segmenter", solutions: rows.length });
    // Held out by problem.
    const train = new Set(jsonLines<SftRowRead>(fileOf(files, "train.jsonl")).map((r) => r.problem_id));
    for (const row of jsonLines<SftRowRead>(fileOf(files, "test.jsonl"))) expect(train.has(row.problem_id)).toBe(false);
    expect(text(fileOf(files, "README.md")!)).toContain("self-segmentation");
    expect(JSON.parse(text(fileOf(files, "manifest.json")!))).toMatchObject({ kind: "segmentation-sft", format: "chat-jsonl", maxPerProblem: 4, includeIncorrect: false });
    expect(text(fileOf(files, "requirements.txt")!)).toMatch(/==/);

    // Seeded: the same seed draws the same rows; another seed draws other ones where a problem has more than 4.
    const again = await exportSegmentationSft(db, { runId: segmentRunId, heldOutFraction: 0.2 }, RUNS);
    expect(again.files.map((f) => text(f))).toEqual(files.map((f) => text(f)));
    const other = await exportSegmentationSft(db, { runId: segmentRunId, heldOutFraction: 0, seed: 99 }, RUNS);
    const drawn = (rs: SftRowRead[]) => rs.map((r) => r.solution_id).sort();
    expect(drawn(jsonLines<SftRowRead>(fileOf(other.files, "train.jsonl")))).not.toEqual(drawn(rows));

    // includeIncorrect keeps incorrect responses; maxPerProblem bounds them all the same.
    const all = await exportSegmentationSft(db, { runId: segmentRunId, includeIncorrect: true, maxPerProblem: 2, heldOutFraction: 0 }, RUNS);
    const allRows = jsonLines<SftRowRead>(fileOf(all.files, "train.jsonl"));
    expect(allRows.some((r) => r.correct !== true)).toBe(true);
    const allPer = new Map<string, number>();
    for (const r of allRows) allPer.set(r.problem_id, (allPer.get(r.problem_id) ?? 0) + 1);
    expect(Math.max(...allPer.values())).toBe(2);

    // verl-sft writes the same rows as Parquet. Every format's launch command passes its release's checks on the files written.
    const verl = await exportSegmentationSft(db, { runId: segmentRunId, heldOutFraction: 0.2, format: "verl-sft" }, RUNS);
    for (const [format, exported] of [["chat-jsonl", { files, report }], ["verl-sft", verl], ["trl-sft", await exportSegmentationSft(db, { runId: segmentRunId, heldOutFraction: 0.2, format: "trl-sft" }, RUNS)]] as const) {
      const splits = exported.report.splits as Record<string, { fileName: string; rows: number }>;
      const launch = exported.report.launch as { command: string | null };
      expect(launch.command, format).not.toBeNull();
      const exportedSplits = {
        rows: Object.fromEntries(Object.values(splits).map((split) => [split.fileName, split.rows])),
        cardSplits: Object.fromEntries(Object.entries(splits).filter(([, split]) => split.rows > 0).map(([name, split]) => [name, split.fileName])),
      };
      expect(checkSftLaunch(format, launch.command!, exportedSplits), format).toEqual([]);
      expect(text(fileOf(exported.files, "README.md")!)).toContain(launch.command!);
    }
    const parquetRows = await readParquetRows(fileOf(verl.files, "train.parquet")!.content);
    expect(parquetRows.map((r) => r.solution_id)).toEqual(jsonLines<SftRowRead>(fileOf(files, "train.jsonl")).map((r) => r.solution_id));
    expect(parquetRows[0]).toMatchObject({ original: expect.any(String), correct: true, messages: [expect.objectContaining({ role: "user" }), expect.objectContaining({ role: "assistant" })] });
  });

  it("selection: every row is its problem's highest-scoring correct candidate; the outcome baseline is a seeded random correct one", async () => {
    const { db } = database;
    const { files, report } = await exportSelection(db, { runId: judgeRunId, aggregate: "mean" }, RUNS);
    const rows = jsonLines<SelectionRowRead>(fileOf(files, "train.jsonl"));
    expect(rows.length).toBeGreaterThan(0);
    // Scores are JSON floats even when whole, so a loader types the column float from the first line on.
    for (const line of text(fileOf(files, "train.jsonl")!).split("\n").filter(Boolean)) {
      expect(line).not.toMatch(/"score":-?\d+[,}]/);
      expect(JSON.parse(line)).toEqual(rows[text(fileOf(files, "train.jsonl")!).split("\n").indexOf(line)]);
    }
    expect(text(fileOf(files, "train.jsonl")!)).toMatch(/"score":1\.0[,}]/);
    // Scores recomputed from the stored vote tallies (Positive share per chunk, mean over the chunks).
    const votes = await db.chunkVotes.findMany({ where: { runId: judgeRunId }, select: { positive: true, negative: true, chunk: { select: { index: true, segmentation: { select: { solutionId: true } } } } } });
    const chunkScores = new Map<string, number[]>();
    for (const v of votes.sort((a, b) => a.chunk.index - b.chunk.index)) {
      const list = chunkScores.get(v.chunk.segmentation.solutionId) ?? [];
      list.push(v.positive + v.negative === 0 ? 0 : v.positive / (v.positive + v.negative));
      chunkScores.set(v.chunk.segmentation.solutionId, list);
    }
    const meanOf = (id: string) => {
      const s = chunkScores.get(id);
      return s ? s.reduce((a, b) => a + b, 0) / s.length : null;
    };
    const solutions = await db.solution.findMany({ where: { datasetId }, orderBy: { externalId: "asc" }, select: { id: true, problemId: true, finalAnswerCorrect: true } });
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(["problem_id", "solution_id", "messages", "score", "candidates"]);
      const candidates = solutions.filter((s) => s.problemId === row.problem_id);
      expect(row.candidates.map((c) => c.solution_id)).toEqual(candidates.map((c) => c.id));
      const best = candidates.filter((c) => c.finalAnswerCorrect === true).reduce<{ id: string; score: number } | null>((top, c) => {
        const score = meanOf(c.id)!;
        return top === null || score > top.score ? { id: c.id, score } : top;
      }, null)!;
      expect(row.solution_id).toBe(best.id);
      expect(row.score).toBeCloseTo(best.score, 12);
      for (const c of row.candidates) {
        expect(c.correct).toBe(candidates.find((s) => s.id === c.solution_id)!.finalAnswerCorrect === true);
        expect(c.score).toBeCloseTo(meanOf(c.solution_id)!, 12);
      }
    }
    const counts = report.counts as Record<string, number>;
    const problemsWithCorrect = new Set(solutions.filter((s) => s.finalAnswerCorrect).map((s) => s.problemId)).size;
    expect(counts).toMatchObject({ rows: rows.length, problems: 10, noCorrectCandidate: 10 - problemsWithCorrect, noJudgedChunk: 0 });
    expect(rows.length).toBe(problemsWithCorrect);

    // min and last pick by their own aggregate.
    const min = jsonLines<SelectionRowRead>(fileOf((await exportSelection(db, { runId: judgeRunId, aggregate: "min" }, RUNS)).files, "train.jsonl"));
    for (const row of min) {
      const competing = row.candidates.filter((c) => c.correct && c.score !== null).map((c) => c.score!);
      expect(row.score).toBe(Math.max(...competing));
      expect(row.score).toBe(Math.min(...chunkScores.get(row.solution_id)!));
    }

    // The outcome baseline: always a correct candidate, the same for the same seed, drawn anew for another.
    const outcome = async (seed: number) => jsonLines<SelectionRowRead>(fileOf((await exportSelection(db, { runId: judgeRunId, aggregate: "mean", baseline: "outcome", seed }, RUNS)).files, "train.jsonl"));
    const a = await outcome(1);
    expect(await outcome(1)).toEqual(a);
    const picks = new Set<string>();
    for (const seed of [1, 2, 3, 4]) {
      const rowsAt = await outcome(seed);
      expect(rowsAt.map((r) => r.problem_id).sort()).toEqual(rows.map((r) => r.problem_id).sort());
      for (const row of rowsAt) {
        expect(row.candidates.find((c) => c.solution_id === row.solution_id)!.correct).toBe(true);
        picks.add(row.solution_id);
      }
    }
    expect(picks.size).toBeGreaterThan(rows.length);
  });

  it("refuses a run of the wrong kind, an unknown aggregate and an empty result, naming the field", async () => {
    const { db } = database;
    const refusal = async (spec: unknown) => {
      try {
        await submitExport(db, NO_QUEUE, { spec: spec as ExportSpecInput });
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        return { field: (error as InputError).location.field, message: (error as Error).message };
      }
      throw new Error("accepted");
    };
    expect(await refusal({ kind: "segmentation-sft", runId: judgeRunId })).toMatchObject({ field: "runId", message: expect.stringMatching(/judge run; segmentation-sft reads a segment run/) });
    expect(await refusal({ kind: "selection", runId: segmentRunId, aggregate: "mean" })).toMatchObject({ field: "runId", message: expect.stringMatching(/segment run; selection reads/) });
    expect(await refusal({ kind: "selection", runId: judgeRunId, aggregate: "median" })).toMatchObject({ field: "aggregate" });
    expect(exportSpecSchema.safeParse({ kind: "selection", runId: judgeRunId, aggregate: "mean", baseline: "random" }).success).toBe(false);

    // A dataset whose every response is wrong: nothing to keep.
    const { datasetId: wrongId } = await createSimWorldDataset(db, { name: "all-wrong", problems: 3, solutionsPerProblem: 2, seed: 950 });
    await db.solution.updateMany({ where: { datasetId: wrongId }, data: { finalAnswerCorrect: false } });
    const segment = await finishedRun(db, endpoints, "segment", { datasetId: wrongId, method: "blank-line" });
    expect(await refusal({ kind: "segmentation-sft", runId: segment.id })).toMatchObject({ field: "includeIncorrect" });
    const judge = await finishedRun(db, endpoints, "judge", { datasetId: wrongId, segmentationMethod: "self-segmented", judgeEndpoint: "judge" });
    expect(await refusal({ kind: "selection", runId: judge.id, aggregate: "mean" })).toMatchObject({ field: "runId", message: expect.stringMatching(/no response whose final answer is correct/) });
    expect(await db.run.count({ where: { kind: "export" } })).toBe(0);
  });
});
