import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildStepwiserJudgePrompt, codePointLength, InputError, parseFieldMapping, parseVerdict, type LabelRule } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import YAML from "yaml";
import {
  cardLicense,
  connectJobQueue,
  createAndExecuteRun,
  runImport,
  storeFile,
  submitImport,
  sizeCategory,
  TRAINING_SET_FORMATS,
  OPENRLHF_PRM_PLACEHOLDER,
  openrlhfPrmInput,
  promptTokenBound,
  createSimWorldDataset,
  EndpointClients,
  exportTrainingSet,
  exportSeeds,
  heldOutProblemCount,
  splitProblems,
  type ExportedFile,
  type TrainingSetExportInput,
  type TrainingSetReport,
  OTHER_RUNS,
} from "../src";
import { writeVerlParquet } from "../src/kinds/export/training-set/verl-parquet";
import type { TrainingRow } from "../src/kinds/export/training-set/rows";
import { LabelledChunk } from "../src/kinds/export/training-set/labelled-chunks";
import { groupSolutions } from "../src/kinds/export/training-set/trl-prm";
import { runName } from "../src/describe-run";
import { checkLaunch, fixtureRelease } from "./trainer-launch";

const ABS_Q: LabelRule = { rule: "abs-q", evidence: "own-prefix" };
const REL_RATIO: LabelRule = { rule: "rel-ratio", gamma: 0.7 };

const PYTHON = spawnSync("python3", ["--version"]).status === 0;

function fileOf(files: ExportedFile[], name: string): ExportedFile {
  const found = files.find((f) => f.fileName === name);
  if (!found) throw new Error(`no ${name} among ${files.map((f) => f.fileName).join(", ")}`);
  return found;
}

const arrayBufferOf = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

interface ParquetRow {
  data_source: string;
  prompt: Array<{ role: string; content: string }>;
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    split: string;
    index: bigint;
    chunk_id: string;
    chunk_index: number;
    solution_id: string;
    external_id: string;
    segmentation_id: string;
    problem_id: string;
    dataset_id: string;
    run_id: string;
    rule: string;
    params: string;
    confidence: number | null;
  };
}

async function readParquet(bytes: Uint8Array): Promise<ParquetRow[]> {
  return (await parquetReadObjects({ file: arrayBufferOf(bytes) })) as unknown as ParquetRow[];
}

interface JsonlRow {
  prompt: Array<{ role: string; content: string }>;
  label: string;
  extra_info: ParquetRow["extra_info"] & { index: number };
}

function readJsonl(bytes: Uint8Array): JsonlRow[] {
  const text = new TextDecoder().decode(bytes);
  if (text === "") return [];
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as JsonlRow);
}

const classCounts = (labels: string[]) => ({ positive: labels.filter((l) => l === "Positive").length, negative: labels.filter((l) => l === "Negative").length });

/** The judge prompt and the stored label of a chunk, straight from the database. */
async function expectedFromDb(db: Db, chunkId: string, runId: string, paramsKey: string, rule: "abs_q" | "rel_ratio") {
  const chunk = await db.chunk.findUniqueOrThrow({
    where: { id: chunkId },
    select: {
      index: true,
      text: true,
      segmentation: { select: { chunks: { orderBy: { index: "asc" }, select: { index: true, text: true } }, solution: { select: { problem: { select: { text: true } } } } } },
    },
  });
  const label = await db.chunkLabel.findFirstOrThrow({ where: { chunkId, runId, rule, paramsKey }, select: { label: true } });
  const prompt = buildStepwiserJudgePrompt({
    problem: chunk.segmentation.solution.problem.text,
    previousChunks: chunk.segmentation.chunks.filter((c) => c.index < chunk.index),
    chunk,
  }).text;
  return { prompt, label: label.label };
}


type SchemaElement = ReturnType<typeof parquetMetadata>["schema"][number];

/** A Parquet schema element as one line: name, repetition, physical type or group, logical type, children. */
const describeElement = (e: SchemaElement) =>
  [e.name, e.repetition_type ?? "", e.type ?? "group", e.logical_type?.type ?? e.converted_type ?? "", e.num_children ?? ""]
    .filter((part) => part !== "")
    .join(" ");

type Shape = { dtype: string } | { list: Shape } | { struct: Array<[string, Shape]> };

/** The columns of a Parquet file in the dataset card's notation, from the schema alone. */
function parquetShapes(schema: SchemaElement[]): Array<[string, Shape]> {
  let i = 1;
  const scalar = (e: SchemaElement): string => {
    if (e.type === "BYTE_ARRAY" && (e.logical_type?.type === "STRING" || e.converted_type === "UTF8")) return "string";
    const types: Record<string, string> = { BOOLEAN: "bool", INT32: "int32", INT64: "int64", DOUBLE: "float64" };
    if (!e.type || !types[e.type]) throw new Error(`no card dtype for ${describeElement(e)}`);
    return types[e.type]!;
  };
  const node = (): [string, Shape] => {
    const e = schema[i++]!;
    if (e.num_children === undefined) return [e.name, { dtype: scalar(e) }];
    if (e.logical_type?.type === "LIST" || e.converted_type === "LIST") {
      i += 1; // the repeated "list" group around the element
      return [e.name, { list: node()[1] }];
    }
    return [e.name, { struct: Array.from({ length: e.num_children }, node) }];
  };
  return Array.from({ length: schema[0]!.num_children! }, node);
}

interface CardYamlFeature {
  name: string;
  dtype?: string;
  list?: string | CardYamlFeature[];
  struct?: CardYamlFeature[];
}

/** The card's features in the same notation. */
function cardShapes(features: CardYamlFeature[]): Array<[string, Shape]> {
  const shape = (f: CardYamlFeature): Shape => {
    if (f.dtype !== undefined) return { dtype: f.dtype };
    if (typeof f.list === "string") return { list: { dtype: f.list } };
    if (Array.isArray(f.list)) return { list: { struct: cardShapes(f.list) } };
    if (f.struct) return { struct: cardShapes(f.struct) };
    throw new Error(`feature ${f.name} has no type`);
  };
  return features.map((f) => [f.name, shape(f)]);
}

/** Whether a JSON value fits a card type (integers fit int64, any number float64; null fits a scalar). */
function fitsShape(value: unknown, shape: Shape): boolean {
  if ("dtype" in shape) {
    if (value === null) return true;
    if (shape.dtype === "string") return typeof value === "string";
    if (shape.dtype === "bool") return typeof value === "boolean";
    if (shape.dtype === "int64" || shape.dtype === "int32") return Number.isInteger(value);
    return typeof value === "number";
  }
  if ("list" in shape) return Array.isArray(value) && value.every((item) => fitsShape(item, shape.list));
  if (typeof value !== "object" || value === null) return false;
  const keys = Object.keys(value);
  return keys.length === shape.struct.length && shape.struct.every(([name, inner], i) => keys[i] === name && fitsShape((value as Record<string, unknown>)[name], inner));
}

interface CardHeader {
  license: string;
  task_categories: string[];
  tags: string[];
  size_categories: string[];
  pretty_name: string;
  configs: Array<{ config_name: string; data_files: Array<{ split: string; path: string }> }>;
  dataset_info: { features: CardYamlFeature[]; splits: Array<{ name: string; num_examples: number }> };
}

/** README.md split into its YAML header (parsed with the `yaml` package) and its Markdown body. */
function readCard(files: ExportedFile[]): { header: CardHeader; body: string } {
  const text = new TextDecoder().decode(fileOf(files, "README.md").content);
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error("README.md does not start with a YAML header between --- lines");
  return { header: YAML.parse(match[1]!, { strict: true, uniqueKeys: true }) as CardHeader, body: match[2]! };
}

interface PrmParquetRow {
  prompt: string;
  completions: string[];
  labels: boolean[];
  extra_info: { split: string; index: bigint; solution_id: string; external_id: string; segmentation_id: string; problem_id: string; dataset_id: string; run_id: string; rule: string; params: string };
}

describe("judge training-set export", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let runId: string;
  let labelledChunks: number;
  let problemCount: number;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    const { db } = database;
    await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    endpoints = new EndpointClients();
    // Two solutions per problem, so a problem's chunks come from several solutions and the by-problem split is tested for real.
    const { datasetId } = await createSimWorldDataset(db, { name: "export", problems: 16, solutionsPerProblem: 2, seed: 120, errorRate: 0.35 });
    const run = await createAndExecuteRun(db, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: 6, seed: 3, labelRules: [ABS_Q, REL_RATIO] } }, { endpoints });
    expect(run.status).toBe("completed");
    runId = run.id;
    labelledChunks = await db.chunkLabel.count({ where: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } });
    problemCount = await db.problem.count({ where: { datasetId } });
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const exportWith = (options: Partial<TrainingSetExportInput> = {}, onProgress?: (done: number, total: number) => void) =>
    exportTrainingSet(database.db, { annotateRunId: runId, labelRule: REL_RATIO, format: "verl", heldOutFraction: 0.25, seed: 7, ...options }, OTHER_RUNS, onProgress);

  it("verl: train.parquet has verl's nested schema, read back by a second Parquet implementation", async () => {
    const { files } = await exportWith();
    expect(files.map((f) => f.fileName)).toEqual(["train.parquet", "test.parquet", "reward.py", "requirements.txt", "README.md", "manifest.json"]);
    expect(fileOf(files, "train.parquet").contentType).toBe("application/vnd.apache.parquet");
    const metadata = parquetMetadata(arrayBufferOf(fileOf(files, "train.parquet").content));
    const describe = (e: (typeof metadata.schema)[number]) =>
      [e.name, e.repetition_type ?? "", e.type ?? "group", e.logical_type?.type ?? e.converted_type ?? "", e.num_children ?? ""]
        .filter((part) => part !== "")
        .join(" ");
    const text = (name: string) => `${name} OPTIONAL BYTE_ARRAY STRING`;
    expect(metadata.schema.slice(1).map(describe)).toEqual([
      text("data_source"),
      // standard 3-level LIST: optional group (LIST) > repeated group list > element
      "prompt OPTIONAL group LIST 1",
      "list REPEATED group 1",
      "element OPTIONAL group 2",
      text("role"),
      text("content"),
      text("ability"),
      "reward_model OPTIONAL group 2",
      text("style"),
      text("ground_truth"),
      "extra_info OPTIONAL group 13",
      text("split"),
      "index OPTIONAL INT64",
      text("chunk_id"),
      "chunk_index OPTIONAL INT32",
      text("solution_id"),
      text("external_id"),
      text("segmentation_id"),
      text("problem_id"),
      text("dataset_id"),
      text("run_id"),
      text("rule"),
      text("params"),
      "confidence OPTIONAL DOUBLE",
    ]);
    expect(metadata.schema[0]!.num_children).toBe(5);
    expect(metadata.row_groups.every((group) => group.columns.every((column) => column.meta_data?.codec === "SNAPPY"))).toBe(true);
  });

  it("verl: every row holds the judge prompt and the stored label of its chunk", async () => {
    const { db } = database;
    const { files, report } = await exportWith();
    const rows = await readParquet(fileOf(files, "train.parquet").content);
    expect(rows.length).toBe(report.splits.train.rows);
    expect(rows.length).toBeGreaterThan(0);
    rows.forEach((row, i) => {
      expect(row.data_source).toBe("stepwiser");
      expect(row.ability).toBe("math-judge");
      expect(row.reward_model.style).toBe("rule");
      expect(row.prompt).toHaveLength(1);
      expect(row.prompt[0]!.role).toBe("user");
      expect(row.extra_info).toMatchObject({ split: "train", index: BigInt(i), run_id: runId, rule: "rel-ratio", params: '{"gamma":0.7}' });
    });
    for (const row of [rows[0]!, rows[rows.length - 1]!]) {
      const expected = await expectedFromDb(db, row.extra_info.chunk_id, runId, '{"gamma":0.7}', "rel_ratio");
      expect(row.prompt[0]!.content).toBe(expected.prompt);
      expect(row.reward_model.ground_truth).toBe(expected.label);
      const chunk = await db.chunk.findUniqueOrThrow({
        where: { id: row.extra_info.chunk_id },
        select: { index: true, segmentationId: true, segmentation: { select: { solution: { select: { id: true, externalId: true, problemId: true, datasetId: true } } } } },
      });
      const { solution } = chunk.segmentation;
      expect(row.extra_info).toMatchObject({
        chunk_index: chunk.index,
        segmentation_id: chunk.segmentationId,
        solution_id: solution.id,
        external_id: solution.externalId,
        problem_id: solution.problemId,
        dataset_id: solution.datasetId,
      });
    }
    // labels of every row against the database, in one query
    const stored = await db.chunkLabel.findMany({ where: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}', chunkId: { in: rows.map((r) => r.extra_info.chunk_id) } } });
    const labelOf = new Map(stored.map((s) => [s.chunkId, s]));
    for (const row of rows) {
      expect(row.reward_model.ground_truth).toBe(labelOf.get(row.extra_info.chunk_id)!.label);
      // An annotate run stores every label's confidence; the row carries it as stored.
      expect(row.extra_info.confidence).toBe(labelOf.get(row.extra_info.chunk_id)!.confidence);
      expect(typeof row.extra_info.confidence).toBe("number");
    }
  });

  it("each split is balanced exactly 50/50 and no problem is in both splits", async () => {
    const { files, report } = await exportWith();
    const train = await readParquet(fileOf(files, "train.parquet").content);
    const test = await readParquet(fileOf(files, "test.parquet").content);
    for (const [rows, split] of [[train, "train"], [test, "test"]] as const) {
      const counts = classCounts(rows.map((r) => r.reward_model.ground_truth));
      expect(counts.positive).toBe(counts.negative);
      expect(counts).toEqual(report.splits[split].after);
      expect(new Set(rows.map((r) => r.extra_info.chunk_id)).size).toBe(rows.length);
    }
    expect(test.length).toBeGreaterThan(0);
    const trainProblems = new Set(train.map((r) => r.extra_info.problem_id));
    const testProblems = new Set(test.map((r) => r.extra_info.problem_id));
    expect([...testProblems].filter((p) => trainProblems.has(p))).toEqual([]);
    expect(report.splits.test.problems).toBe(heldOutProblemCount(problemCount, 0.25));
    expect(report.splits.test.problems).toBe(4);
    expect(report.splits.train.problems + report.splits.test.problems).toBe(problemCount);
    // the sampler's report adds up: every labelled chunk is counted once, before any filter
    const before = (s: "train" | "test") => report.splits[s].before.positive + report.splits[s].before.negative;
    expect(before("train") + before("test")).toBe(labelledChunks);
    expect(report.labelledChunks).toBe(labelledChunks);
    const manifest = JSON.parse(new TextDecoder().decode(fileOf(files, "manifest.json").content)) as TrainingSetReport;
    expect(manifest).toEqual(JSON.parse(JSON.stringify(report)));
    expect(manifest).toMatchObject({ annotateRunId: runId, labelRuleKey: "rel-ratio(gamma=0.7)", params: '{"gamma":0.7}', seed: 7, heldOutFraction: 0.25, seeds: { train: "7:train", test: "7:test" } });
    expect(manifest.files.map((f) => f.fileName)).toEqual(["train.parquet", "test.parquet", "reward.py", "requirements.txt", "README.md"]);
    expect(manifest.layout.columns!.map((c) => c.name)).toEqual(["data_source", "prompt", "ability", "reward_model", "extra_info"]);
  });

  it("the same seed gives identical files; another seed selects differently", async () => {
    const first = await exportWith();
    const again = await exportWith();
    expect(again.files.map((f) => f.fileName)).toEqual(first.files.map((f) => f.fileName));
    first.files.forEach((f, i) => expect(Buffer.from(again.files[i]!.content).equals(Buffer.from(f.content))).toBe(true));

    const other = await exportWith({ seed: 8 });
    const ids = async (result: typeof first, name: string) => (await readParquet(fileOf(result.files, name).content)).map((r) => r.extra_info.chunk_id);
    const [a, b] = [await ids(first, "train.parquet"), await ids(other, "train.parquet")];
    expect(b).not.toEqual(a);
    const testProblems = async (result: typeof first) => new Set((await readParquet(fileOf(result.files, "test.parquet").content)).map((r) => r.extra_info.problem_id));
    expect([...(await testProblems(other))].sort()).not.toEqual([...(await testProblems(first))].sort());
  });

  it("prompt length bounds are honoured, inclusive, on the rendered user message", async () => {
    const unfiltered = await exportWith({ heldOutFraction: 0 });
    const lengths = (await readParquet(fileOf(unfiltered.files, "train.parquet").content)).map((r) => codePointLength(r.prompt[0]!.content)).sort((x, y) => x - y);
    const min = lengths[Math.floor(lengths.length * 0.2)]!;
    const max = lengths[Math.floor(lengths.length * 0.8)]!;
    const { files, report } = await exportWith({ heldOutFraction: 0, minPromptChars: min, maxPromptChars: max });
    const rows = await readParquet(fileOf(files, "train.parquet").content);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const size = codePointLength(row.prompt[0]!.content);
      expect(size).toBeGreaterThanOrEqual(min);
      expect(size).toBeLessThanOrEqual(max);
    }
    expect(report.splits.train.filteredOut.tooShort).toBeGreaterThan(0);
    expect(report.splits.train.filteredOut.tooLong).toBeGreaterThan(0);
    expect(report.filters).toMatchObject({ minPromptChars: min, maxPromptChars: max });
    const counts = classCounts(rows.map((r) => r.reward_model.ground_truth));
    expect(counts.positive).toBe(counts.negative);
    // a held-out fraction of 0 still writes a readable, empty test file with the full schema
    const test = fileOf(files, "test.parquet");
    expect(parquetMetadata(arrayBufferOf(test.content)).schema.length).toBe(25);
    expect(await readParquet(test.content)).toEqual([]);
    expect(report.splits.test).toMatchObject({ problems: 0, rows: 0 });
  });

  /** The run's Rel-Ratio labels with their confidence and the split their problem falls in (seed 7, a quarter held out). */
  async function storedLabelsBySplit() {
    const stored = await database.db.chunkLabel.findMany({
      where: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' },
      select: { chunkId: true, label: true, confidence: true, chunk: { select: { segmentation: { select: { solution: { select: { problemId: true } } } } } } },
    });
    const problems = splitProblems(
      stored.map((s) => s.chunk.segmentation.solution.problemId),
      0.25,
      exportSeeds(7).problems,
    );
    return stored.map((s) => ({
      chunkId: s.chunkId,
      label: s.label,
      confidence: s.confidence,
      split: problems.test.has(s.chunk.segmentation.solution.problemId) ? ("test" as const) : ("train" as const),
    }));
  }

  it("minConfidence: only labels at least that sure are kept (inclusive), then each split is balanced exactly as before", async () => {
    const stored = await storedLabelsBySplit();
    expect(stored.every((s) => s.confidence !== null)).toBe(true);
    // A stored confidence as the threshold, so a label exactly at it exists: the bound is inclusive.
    const confidences = stored.map((s) => s.confidence!).sort((a, b) => a - b);
    const minConfidence = confidences[Math.floor(confidences.length * 0.4)]!;
    const atThreshold = stored.filter((s) => s.confidence === minConfidence).length;
    expect(atThreshold).toBeGreaterThan(0);

    const baseline = await exportWith();
    const { files, report } = await exportWith({ minConfidence });
    const confidenceOf = new Map(stored.map((s) => [s.chunkId, s.confidence!]));
    const below = new Set(stored.filter((s) => s.confidence! < minConfidence).map((s) => s.chunkId));
    expect(below.size).toBeGreaterThan(0);
    for (const split of ["train", "test"] as const) {
      const rows = await readParquet(fileOf(files, `${split}.parquet`).content);
      for (const row of rows) {
        expect(row.extra_info.confidence).toBeGreaterThanOrEqual(minConfidence);
        expect(row.extra_info.confidence).toBe(confidenceOf.get(row.extra_info.chunk_id));
        expect(below.has(row.extra_info.chunk_id)).toBe(false);
      }
      const counts = classCounts(rows.map((r) => r.reward_model.ground_truth));
      expect(counts.positive).toBe(counts.negative);
      expect(counts).toEqual(report.splits[split].after);
      // The sampler's counts, recomputed from the database: everything before, the confident ones eligible.
      const inSplit = stored.filter((s) => s.split === split);
      const count = (list: typeof stored) => classCounts(list.map((s) => s.label));
      const confident = inSplit.filter((s) => s.confidence! >= minConfidence);
      expect(report.splits[split].before).toEqual(count(inSplit));
      expect(report.splits[split].before).toEqual(baseline.report.splits[split].before);
      expect(report.splits[split].eligible).toEqual(count(confident));
      expect(report.splits[split].filteredOut).toEqual({ tooShort: 0, tooLong: 0, lowConfidence: inSplit.length - confident.length });
      expect(report.splits[split].after.positive).toBe(Math.min(report.splits[split].eligible.positive, report.splits[split].eligible.negative));
      // The split itself does not move with the threshold.
      expect(report.splits[split].problems).toBe(baseline.report.splits[split].problems);
    }
    expect(report.splits.train.rows).toBeGreaterThan(0);
    expect(report.splits.train.filteredOut.lowConfidence).toBeGreaterThan(0);
    expect(baseline.report.splits.train.filteredOut.lowConfidence).toBe(0);
    expect(report.filters.minConfidence).toBe(minConfidence);
    expect(baseline.report.filters.minConfidence).toBeNull();
    // JSONL carries the same rows with the same confidence.
    const trl = await exportWith({ minConfidence, format: "trl" });
    const lines = readJsonl(fileOf(trl.files, "train.jsonl").content);
    expect(lines.map((l) => [l.extra_info.chunk_id, l.extra_info.confidence])).toEqual(
      (await readParquet(fileOf(files, "train.parquet").content)).map((r) => [r.extra_info.chunk_id, r.extra_info.confidence]),
    );
    // 1 keeps only labels that are certain; 0 keeps every label that has a confidence, i.e. all of this run's.
    const zero = await exportWith({ minConfidence: 0 });
    expect(zero.report.splits).toEqual(baseline.report.splits);
    const one = await exportWith({ minConfidence: 1 });
    for (const split of ["train", "test"] as const) {
      expect(one.report.splits[split].eligible).toEqual(classCounts(stored.filter((s) => s.split === split && s.confidence === 1).map((s) => s.label)));
    }
  });

  it("without minConfidence the confidence changes nothing but extra_info.confidence; with it, a run without confidences is refused", async () => {
    const { db } = database;
    const stored = await db.chunkLabel.findMany({ where: { runId }, select: { id: true, confidence: true } });
    const before = await exportWith({ format: "trl" });
    const rowsBefore = readJsonl(fileOf(before.files, "train.jsonl").content).concat(readJsonl(fileOf(before.files, "test.jsonl").content));
    expect(rowsBefore.every((r) => typeof r.extra_info.confidence === "number")).toBe(true);
    // As an imported run's labels, or labels stored before confidences existed: none has one.
    await db.chunkLabel.updateMany({ where: { runId }, data: { confidence: null } });
    try {
      const after = await exportWith({ format: "trl" });
      const rowsAfter = readJsonl(fileOf(after.files, "train.jsonl").content).concat(readJsonl(fileOf(after.files, "test.jsonl").content));
      expect(rowsAfter.map((r) => r.extra_info.confidence)).toEqual(rowsAfter.map(() => null));
      const strip = (rows: JsonlRow[]) => rows.map((r) => ({ ...r, extra_info: { ...r.extra_info, confidence: "?" } }));
      expect(strip(rowsAfter)).toEqual(strip(rowsBefore));
      expect(after.report.splits).toEqual(before.report.splits);
      // verl writes the nulls as Parquet nulls.
      const verl = await exportWith();
      expect((await readParquet(fileOf(verl.files, "train.parquet").content)).every((r) => r.extra_info.confidence === null)).toBe(true);

      const refused = await exportWith({ minConfidence: 0.5 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(InputError);
      expect((refused as InputError).location.field).toBe("minConfidence");
      expect((refused as InputError).message).toContain("rel-ratio(gamma=0.7)");
    } finally {
      await db.$transaction(stored.map((s) => db.chunkLabel.update({ where: { id: s.id }, data: { confidence: s.confidence } })));
    }
  });

  it("openrlhf and trl: JSONL lines with prompt, label and extra_info, and their reward functions", async () => {
    const { db } = database;
    const verl = await exportWith({ labelRule: ABS_Q });
    const verlTrain = await readParquet(fileOf(verl.files, "train.parquet").content);
    for (const format of ["openrlhf", "trl"] as const) {
      const { files, report } = await exportWith({ labelRule: ABS_Q, format });
      expect(files.map((f) => f.fileName)).toEqual(["train.jsonl", "test.jsonl", "reward_func.py", "requirements.txt", "README.md", "manifest.json"]);
      const train = readJsonl(fileOf(files, "train.jsonl").content);
      const test = readJsonl(fileOf(files, "test.jsonl").content);
      for (const rows of [train, test]) {
        for (const row of rows) {
          expect(Object.keys(row)).toEqual(["prompt", "label", "extra_info"]);
          expect(row.prompt.map((m) => Object.keys(m))).toEqual([["role", "content"]]);
          expect(["Positive", "Negative"]).toContain(row.label);
        }
        const counts = classCounts(rows.map((r) => r.label));
        expect(counts.positive).toBe(counts.negative);
      }
      expect(train.length).toBe(report.splits.train.rows);
      // same selection and order as the verl export with the same options
      expect(train.map((r) => r.extra_info.chunk_id)).toEqual(verlTrain.map((r) => r.extra_info.chunk_id));
      expect(train.map((r) => r.extra_info.index)).toEqual(train.map((_, i) => i));
      const expected = await expectedFromDb(db, train[0]!.extra_info.chunk_id, runId, '{"evidence":"own-prefix"}', "abs_q");
      expect(train[0]!.prompt[0]!.content).toBe(expected.prompt);
      expect(train[0]!.label).toBe(expected.label);
      expect(train[0]!.extra_info).toMatchObject({ rule: "abs-q", params: '{"evidence":"own-prefix"}', split: "train" });
      const script = new TextDecoder().decode(fileOf(files, "reward_func.py").content);
      expect(script).toContain(format === "openrlhf" ? "def reward_func(queries, prompts, labels" : "def verdict_reward(completions, label");
      expect(report.layout.keys!.map((k) => k.key)).toEqual(["prompt", "label", "extra_info"]);
    }
  });


  const PRM_OPTIONS = { format: "trl-prm" } as const;

  /** Rows of every file the export wrote, read back: Parquet with hyparquet, JSONL line by line. */
  async function rowsOf(files: ExportedFile[]): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const f of files) {
      if (f.fileName.endsWith(".parquet")) out[f.fileName] = await parquetReadObjects({ file: arrayBufferOf(f.content) });
      if (f.fileName.endsWith(".jsonl")) out[f.fileName] = readJsonl(f.content);
    }
    return out;
  }

  it("trl-prm: stepwise supervision in Parquet (list<string>, list<bool>), schema element by element", async () => {
    const { files, report } = await exportWith({ format: "trl-prm" });
    expect(files.map((f) => f.fileName)).toEqual(["train.parquet", "test.parquet", "train.jsonl", "test.jsonl", "requirements.txt", "README.md", "manifest.json"]);
    const text = (name: string) => `${name} OPTIONAL BYTE_ARRAY STRING`;
    for (const name of ["train.parquet", "test.parquet"]) {
      const metadata = parquetMetadata(arrayBufferOf(fileOf(files, name).content));
      expect(metadata.schema[0]!.num_children).toBe(4);
      expect(metadata.schema.slice(1).map(describeElement)).toEqual([
        text("prompt"),
        "completions OPTIONAL group LIST 1",
        "list REPEATED group 1",
        text("element"),
        "labels OPTIONAL group LIST 1",
        "list REPEATED group 1",
        "element OPTIONAL BOOLEAN",
        "extra_info OPTIONAL group 10",
        text("split"),
        "index OPTIONAL INT64",
        text("solution_id"),
        text("external_id"),
        text("segmentation_id"),
        text("problem_id"),
        text("dataset_id"),
        text("run_id"),
        text("rule"),
        text("params"),
      ]);
      expect(metadata.row_groups.every((group) => group.columns.every((column) => column.meta_data?.codec === "SNAPPY"))).toBe(true);
    }
    expect(report.format).toBe("trl-prm");
    expect(report.promptTemplate).toBeNull();
    expect(report.layout.columns!.map((c) => c.name)).toEqual(["prompt", "completions", "labels", "extra_info"]);
    expect(report.layout.columns!.map((c) => c.type).slice(0, 3)).toEqual(["string", "list<string>", "list<bool>"]);
  });

  it("trl-prm: one row per solution, its chunks in order with one label each, balanced by solution per split; JSONL holds the same rows", async () => {
    const { db } = database;
    const { files, report } = await exportWith(PRM_OPTIONS);
    const segmentations = await db.segmentation.findMany({
      where: { chunks: { some: { labels: { some: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } } } } },
      select: {
        id: true,
        solution: { select: { id: true, externalId: true, problemId: true, datasetId: true, problem: { select: { text: true } } } },
        chunks: { orderBy: { index: "asc" }, select: { text: true, labels: { where: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' }, select: { label: true } } } },
      },
    });
    const byId = new Map(segmentations.map((s) => [s.id, s]));
    expect(report.solutions).toEqual({ read: segmentations.length, truncated: 0, withoutFirstLabel: 0 });
    const seen = new Set<string>();
    const problemsOf = { train: new Set<string>(), test: new Set<string>() };
    for (const split of ["train", "test"] as const) {
      const rows = (await parquetReadObjects({ file: arrayBufferOf(fileOf(files, `${split}.parquet`).content) })) as unknown as PrmParquetRow[];
      expect(rows.length).toBe(report.splits[split].rows);
      expect(rows.length).toBeGreaterThan(0);
      const steps = { positive: 0, negative: 0 };
      rows.forEach((row, i) => {
        const stored = byId.get(row.extra_info.segmentation_id)!;
        expect(stored).toBeDefined();
        expect(seen.has(stored.id)).toBe(false);
        seen.add(stored.id);
        expect(row.prompt).toBe(stored.solution.problem.text);
        expect(row.completions).toEqual(stored.chunks.map((c) => c.text));
        expect(row.labels).toEqual(stored.chunks.map((c) => c.labels[0]!.label === "Positive"));
        expect(row.labels).toHaveLength(row.completions.length);
        expect(row.extra_info).toEqual({
          split,
          index: BigInt(i),
          solution_id: stored.solution.id,
          external_id: stored.solution.externalId,
          segmentation_id: stored.id,
          problem_id: stored.solution.problemId,
          dataset_id: stored.solution.datasetId,
          run_id: runId,
          rule: "rel-ratio",
          params: '{"gamma":0.7}',
        });
        problemsOf[split].add(stored.solution.problemId);
        for (const label of row.labels) steps[label ? "positive" : "negative"] += 1;
      });
      // Not balanced: every solution of the split's problems, counted by kind (with or without a Negative step).
      const withNegative = rows.filter((row) => row.labels.includes(false)).length;
      expect(report.splits[split].after).toEqual({ positive: rows.length - withNegative, negative: withNegative });
      expect(report.splits[split].after).toEqual(report.splits[split].before);
      expect(report.splits[split].steps).toEqual(steps);
      // The JSONL file: the same rows, the same keys.
      const lines = readJsonl(fileOf(files, `${split}.jsonl`).content) as unknown as Array<Omit<PrmParquetRow, "extra_info"> & { extra_info: PrmParquetRow["extra_info"] & { index: number } }>;
      expect(lines.map((line) => Object.keys(line))).toEqual(rows.map(() => ["prompt", "completions", "labels", "extra_info"]));
      expect(lines).toEqual(rows.map((row) => ({ ...row, extra_info: { ...row.extra_info, index: Number(row.extra_info.index) } })));
    }
    expect(seen.size).toBe(segmentations.length);
    // The split by problem is the one every format uses.
    expect([...problemsOf.test].filter((p) => problemsOf.train.has(p))).toEqual([]);
    const verl = await exportWith();
    const verlTest = new Set((await readParquet(fileOf(verl.files, "test.parquet").content)).map((r) => r.extra_info.problem_id));
    expect([...problemsOf.test].every((p) => verlTest.has(p))).toBe(true);
    // Same seed, same bytes.
    const again = await exportWith(PRM_OPTIONS);
    again.files.forEach((f, i) => expect(Buffer.from(f.content).equals(Buffer.from(files[i]!.content)), f.fileName).toBe(true));
  });

  it("trl-prm round trip: the train split's Parquet imports back through the field mapping with the same problems, chunks and labels", async () => {
    const { db } = database;
    const { files } = await exportWith(PRM_OPTIONS);
    const train = fileOf(files, "train.parquet");
    const rows = (await parquetReadObjects({ file: arrayBufferOf(train.content) })) as unknown as PrmParquetRow[];
    const queue = await connectJobQueue(database.url);
    try {
      const upload = await storeFile(db, { fileName: "train.parquet", purpose: "upload" }, [train.content]);
      const mapping = parseFieldMapping("problem=prompt,steps=completions,labels=labels,labelKind=hard,id=extra_info.segmentation_id");
      const run = await submitImport(db, queue, { fileId: upload.id, options: { format: "parquet", mapping, datasetName: "trl-prm round trip" } });
      await runImport(db, run.id);
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(done.status, done.error ?? "").toBe("completed");
      const imported = await db.solution.findMany({
        where: { datasetId: done.datasetId! },
        select: {
          externalId: true,
          problem: { select: { text: true } },
          segmentations: { select: { chunks: { orderBy: { index: "asc" }, select: { text: true, labels: { select: { label: true } } } } } },
        },
      });
      expect(imported).toHaveLength(rows.length);
      const byId = new Map(imported.map((t) => [t.externalId, t]));
      for (const row of rows) {
        const t = byId.get(row.extra_info.segmentation_id)!;
        expect(t.problem.text).toBe(row.prompt);
        const chunks = t.segmentations[0]!.chunks;
        expect(chunks.map((c) => c.text)).toEqual(row.completions);
        expect(chunks.map((c) => c.labels.map((l) => l.label))).toEqual(row.labels.map((positive) => [positive ? "Positive" : "Negative"]));
      }
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
  });

  it("openrlhf-prm: one JSON line per solution, one placeholder per label, labels from the stored chunk labels; the same solutions as trl-prm", async () => {
    const { db } = database;
    const { files, report } = await exportWith({ format: "openrlhf-prm" });
    expect(files.map((f) => f.fileName)).toEqual(["train.jsonl", "test.jsonl", "requirements.txt", "README.md", "manifest.json"]);
    expect(report.promptTemplate).toBeNull();
    expect(report.layout.keys!.map((k) => k.key)).toEqual(["input", "label", "extra_info"]);
    expect(report.procedure[0]).toContain("already hold the placeholder token");
    expect(report.filters.measure).toContain("input");
    const segmentations = await db.segmentation.findMany({
      where: { chunks: { some: { labels: { some: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } } } } },
      select: {
        id: true,
        solution: { select: { problem: { select: { text: true } } } },
        chunks: { orderBy: { index: "asc" }, select: { text: true, labels: { where: { runId, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' }, select: { label: true } } } },
      },
    });
    const byId = new Map(segmentations.map((seg) => [seg.id, seg]));
    expect(report.solutions).toEqual({ read: segmentations.length, truncated: 0, withoutFirstLabel: 0, placeholderInText: 0 });
    const trl = await exportWith(PRM_OPTIONS);
    for (const split of ["train", "test"] as const) {
      const rows = readJsonl(fileOf(files, `${split}.jsonl`).content) as unknown as Array<{ input: string; label: string[]; extra_info: PrmParquetRow["extra_info"] & { index: number } }>;
      expect(rows.length).toBe(report.splits[split].rows);
      expect(rows.length).toBeGreaterThan(0);
      const steps = { positive: 0, negative: 0 };
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(["input", "label", "extra_info"]);
        const stored = byId.get(row.extra_info.segmentation_id)!;
        // The placeholder marks each step, on a line of its own: as many placeholders as labels.
        expect(row.input.split("\n").filter((line) => line === OPENRLHF_PRM_PLACEHOLDER)).toHaveLength(row.label.length);
        expect(row.input.split(OPENRLHF_PRM_PLACEHOLDER)).toHaveLength(row.label.length + 1);
        expect(row.input).toBe(openrlhfPrmInput(stored.solution.problem.text, stored.chunks.map((c) => c.text)));
        expect(row.label).toEqual(stored.chunks.map((c) => (c.labels[0]!.label === "Positive" ? "+" : "-")));
        for (const label of row.label) steps[label === "+" ? "positive" : "negative"] += 1;
      }
      expect(report.splits[split].steps).toEqual(steps);
      // The same grouping, split and order as trl-prm, with the same extra_info.
      const trlRows = readJsonl(fileOf(trl.files, `${split}.jsonl`).content) as unknown as Array<{ prompt: string; completions: string[]; labels: boolean[]; extra_info: unknown }>;
      expect(rows.map((row) => row.extra_info)).toEqual(trlRows.map((row) => row.extra_info));
      expect(rows.map((row) => row.label)).toEqual(trlRows.map((row) => row.labels.map((positive) => (positive ? "+" : "-"))));
    }
    const balanced = await exportWith({ format: "openrlhf-prm", labelRule: ABS_Q, heldOutFraction: 0.5, balanceSolutions: true });
    expect(balanced.report.splits.train.after.positive).toBe(balanced.report.splits.train.after.negative);
  });

  it("trl-prm with balanceSolutions: each split holds as many solutions with a Negative step as without; other formats refuse the option", async () => {
    const { files, report } = await exportWith({ format: "trl-prm", labelRule: ABS_Q, heldOutFraction: 0.5, balanceSolutions: true });
    expect(report.balanceSolutions).toBe(true);
    for (const split of ["train", "test"] as const) {
      const rows = (await parquetReadObjects({ file: arrayBufferOf(fileOf(files, `${split}.parquet`).content) })) as unknown as PrmParquetRow[];
      const withNegative = rows.filter((row) => row.labels.includes(false)).length;
      expect(rows.length).toBeGreaterThan(0);
      expect(withNegative).toBe(rows.length - withNegative);
      expect(report.splits[split].after).toEqual({ positive: withNegative, negative: withNegative });
      expect(report.splits[split].eligible.negative).toBeGreaterThan(withNegative);
    }
    const refused = await exportWith({ format: "verl", balanceSolutions: true }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(InputError);
    expect((refused as InputError).location.field).toBe("balanceSolutions");
  });

  it("trl-prm: solutions are cut at the first chunk without a label, and left out when their first chunk has none", () => {
    const chunk = (segmentation: string, position: number, label: "Positive" | "Negative" = "Positive") =>
      new LabelledChunk(label, 0.9, `${segmentation}-${position}`, position, position, segmentation, `t-${segmentation}`, "e", "p", "d", { problem: "1+1?", chunks: ["a", "b", "c", "d"] });
    const grouping = groupSolutions([chunk("s1", 0), chunk("s1", 1, "Negative"), chunk("s1", 3), chunk("s2", 1), chunk("s2", 2), chunk("s3", 0), chunk("s3", 1)]);
    expect(grouping.truncated).toBe(1);
    expect(grouping.withoutFirstLabel).toBe(1);
    expect(grouping.solutions.map((s) => [s.steps[0]!.segmentationId, s.completions, s.label])).toEqual([
      ["s1", ["a", "b"], "Negative"],
      ["s3", ["a", "b"], "Positive"],
    ]);
    expect(grouping.solutions[0]!.prompt).toBe("1+1?\na\nb\n");
  });

  it("every format writes a dataset card: YAML header with the Hub's keys, features matching the files, split counts matching the rows", async () => {
    const run = await database.db.run.findUniqueOrThrow({ where: { id: runId }, select: { id: true, kind: true, name: true, config: true } });
    for (const format of TRAINING_SET_FORMATS) {
      const options = format === "trl-prm" ? PRM_OPTIONS : { format };
      const { files, report } = await exportWith(options);
      const { header, body } = readCard(files);
      expect(Object.keys(header), format).toEqual(["license", "task_categories", "tags", "size_categories", "pretty_name", "configs", "dataset_info"]);
      expect(header.license).toBe(cardLicense(["generated"]).license);
      expect(header.license).toBe("other");
      expect(header.task_categories).toEqual([format === "trl-prm" || format === "openrlhf-prm" ? "token-classification" : "text-generation"]);
      expect(header.tags).toEqual(["process-supervision", format]);
      const rows = await rowsOf(files);
      const total = report.splits.train.rows + report.splits.test.rows;
      expect(header.size_categories).toEqual([sizeCategory(total)]);
      expect(header.size_categories).toEqual(["n<1K"]);
      const ext = format === "verl" || format === "trl-prm" ? "parquet" : "jsonl";
      expect(header.configs).toEqual([
        {
          config_name: "default",
          data_files: [
            { split: "train", path: `train.${ext}` },
            { split: "test", path: `test.${ext}` },
          ],
        },
      ]);
      expect(header.dataset_info.splits).toEqual([
        { name: "train", num_examples: rows[`train.${ext}`]!.length },
        { name: "test", num_examples: rows[`test.${ext}`]!.length },
      ]);
      expect(header.dataset_info.splits.map((s) => s.num_examples)).toEqual([report.splits.train.rows, report.splits.test.rows]);
      const features = cardShapes(header.dataset_info.features);
      if (ext === "parquet") {
        for (const split of ["train", "test"]) expect(features, `${format} ${split}`).toEqual(parquetShapes(parquetMetadata(arrayBufferOf(fileOf(files, `${split}.${ext}`).content)).schema));
      } else {
        expect(features.map(([name]) => name)).toEqual(format === "openrlhf-prm" ? ["input", "label", "extra_info"] : ["prompt", "label", "extra_info"]);
        for (const line of [...rows["train.jsonl"]!, ...rows["test.jsonl"]!]) {
          expect(Object.keys(line as object)).toEqual(features.map(([name]) => name));
          for (const [name, shape] of features) expect(fitsShape((line as Record<string, unknown>)[name], shape), `${format} ${name}`).toBe(true);
        }
      }
      // Provenance in the body.
      expect(body).toContain(`Labels from run \`${runId}\` (annotate): ${runName(run)}`);
      expect(body).toContain(", seed 3");
      expect(body).toContain("Label rule `rel-ratio(gamma=0.7)`");
      expect(body).toContain(`Export seed 7; derived seeds problems \`7:problems\`, train \`7:train\`, test \`7:test\`; held-out fraction 0.25`);
      expect(body).toContain(`| train | train.${ext} | ${report.splits.train.rows} | ${report.splits.train.problems} | ${report.splits.train.after.positive} | ${report.splits.train.after.negative} |`);
      expect(body).toContain("license: generated");
      // The longest prompt, measured on the rows written: the text each trainer tokenizes.
      const promptText = (row: Record<string, unknown>): string =>
        format === "openrlhf-prm"
          ? (row.input as string)
          : format === "trl-prm"
            ? [row.prompt as string, ...(row.completions as string[])].join("\n") + "\n"
            : (row.prompt as Array<{ content: string }>)[0]!.content;
      const longestBytes = Math.max(...[...rows[`train.${ext}`]!, ...rows[`test.${ext}`]!].map((row) => Buffer.byteLength(promptText(row as Record<string, unknown>), "utf8")));
      expect(Math.max(report.splits.train.longestPromptBytes, report.splits.test.longestPromptBytes), format).toBe(longestBytes);
      // The launch command the card and the manifest give passes the release's checks on these files, sized from them.
      const splitFiles = Object.fromEntries(header.configs[0]!.data_files.map((d) => [d.split, d.path]));
      expect(report.launch.command).not.toBeNull();
      expect(body).toContain(report.launch.command!);
      const lengths = { promptTokens: promptTokenBound(longestBytes), responseTokens: 3096 };
      expect(checkLaunch(format, report.launch.command!, { rows: Object.fromEntries(Object.entries(rows).map(([f, r]) => [f, r.length])), cardSplits: splitFiles, lengths }), format).toEqual([]);
      expect(report.usage[0]).toBe(report.launch.command);
      // requirements.txt: exact pins, the trainer at the release the command was checked against; the manifest and the card name it.
      const requirements = new TextDecoder().decode(fileOf(files, "requirements.txt").content);
      const lines = requirements.split("\n").filter((line) => line !== "");
      expect(requirements.endsWith("\n")).toBe(true);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line, `${format}: ${line}`).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[0-9][0-9A-Za-z.+!-]*$/);
      const release = fixtureRelease(format);
      expect(report.trainerRelease, format).toMatchObject({ trainer: release.trainer, release: release.release, sourceCommit: release.commit, tag: release.tag });
      expect(lines[0]).toBe(`${{ verl: "verl", OpenRLHF: "openrlhf", TRL: "trl" }[release.trainer]}==${release.release}`);
      const manifest = JSON.parse(new TextDecoder().decode(fileOf(files, "manifest.json").content)) as TrainingSetReport;
      expect(manifest.trainerRelease).toEqual(report.trainerRelease);
      expect(body).toContain(`Written for and checked against ${release.trainer} ${release.release}`);
      expect(body).toContain(release.commit);
    }
  });

  it("an empty test split is left out of the card's configs and of the launch command", async () => {
    for (const format of TRAINING_SET_FORMATS) {
      const { files, report } = await exportWith({ format, heldOutFraction: 0 });
      expect(report.splits.test.rows).toBe(0);
      const { header, body } = readCard(files);
      expect(header.configs[0]!.data_files.map((d) => d.split)).toEqual(["train"]);
      expect(header.dataset_info.splits).toEqual([{ name: "train", num_examples: report.splits.train.rows }]);
      expect(body).toContain("A split with no rows is written as an empty file and left out of the `configs` above");
      expect(report.launch.validation).toBe("off");
      const rows = Object.fromEntries(Object.entries(await rowsOf(files)).map(([f, r]) => [f, r.length]));
      expect(checkLaunch(format, report.launch.command!, { rows, cardSplits: { train: header.configs[0]!.data_files[0]!.path } }), format).toEqual([]);
      expect(report.launch.command).not.toMatch(/test\.(parquet|jsonl)/);
    }
  });

  it("reports progress as chunks are read", async () => {
    const calls: Array<[number, number]> = [];
    await exportWith({}, (done, total) => calls.push([done, total]));
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every(([, total]) => total === labelledChunks)).toBe(true);
    expect(calls.at(-1)![0]).toBe(labelledChunks);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThanOrEqual(calls[i - 1]![0]);
  });

  it("an unknown run, a run without labels or a rule the run lacks is an InputError naming the field", async () => {
    const { db } = database;
    const fieldOf = async (options: Partial<TrainingSetExportInput>) => {
      const error = await exportWith(options).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InputError);
      return error as InputError;
    };
    const unknown = await fieldOf({ annotateRunId: "no-such-run" });
    expect(unknown.location.field).toBe("annotateRunId");
    expect(unknown.message).toContain("no-such-run");

    const judgeRun = await db.run.create({ data: { kind: "judge", config: {} } });
    const unlabelled = await fieldOf({ annotateRunId: judgeRun.id });
    expect(unlabelled.location.field).toBe("annotateRunId");
    expect(unlabelled.message).toContain("no chunk labels");

    const missing = await fieldOf({ labelRule: { rule: "rel-effective", alpha: 0.8, n: 4 } });
    expect(missing.location.field).toBe("labelRule");
    expect(missing.message).toContain("abs-q");
    expect(missing.message).toContain("rel-ratio(gamma=0.7)");
    const otherGamma = await fieldOf({ labelRule: { rule: "rel-ratio", gamma: 0.9 } });
    expect(otherGamma.location.field).toBe("labelRule");

    expect((await fieldOf({ heldOutFraction: 0.9 })).location.field).toBe("heldOutFraction");
    expect((await fieldOf({ minPromptChars: 500, maxPromptChars: 100 })).location.field).toBe("minPromptChars");
    expect((await fieldOf({ minConfidence: 1.5 })).location.field).toBe("minConfidence");
    expect((await fieldOf({ minConfidence: -0.1 })).location.field).toBe("minConfidence");
  });

  it("verl: rows written across several row groups read back in order, with non-ASCII text intact", async () => {
    const rowAt = (i: number): TrainingRow => ({
      prompt: [{ role: "user", content: `chunk ${i}: 𝑥² − 1 = 0 ⇒ x = ±1 \\boxed{${i}} «é»` }],
      label: i % 3 === 0 ? "Positive" : "Negative",
      extra_info: {
        split: "train",
        index: i,
        chunk_id: `c${i}`,
        chunk_index: i % 7,
        solution_id: "t",
        external_id: "e",
        segmentation_id: "s",
        problem_id: "p",
        dataset_id: "d",
        run_id: "r",
        rule: "abs-q",
        params: "{}",
        // Imported labels have no confidence: null in the file, every other value set.
        confidence: i % 4 === 3 ? null : i / 10,
      },
    });
    const bytes = await writeVerlParquet(10, rowAt, "sim", 3);
    expect(parquetMetadata(arrayBufferOf(bytes)).row_groups.map((group) => Number(group.num_rows))).toEqual([3, 3, 3, 1]);
    const rows = await readParquet(bytes);
    expect(rows).toHaveLength(10);
    rows.forEach((row, i) => {
      const expected = rowAt(i);
      expect(row.prompt).toEqual(expected.prompt);
      expect(row.reward_model).toEqual({ style: "rule", ground_truth: expected.label });
      expect(row.extra_info).toEqual({ ...expected.extra_info, index: BigInt(i) });
      expect(row.data_source).toBe("sim");
    });
  });

  it("held-out problem counts: rounded, at least one when asked for, never all", () => {
    expect(heldOutProblemCount(16, 0.25)).toBe(4);
    expect(heldOutProblemCount(10, 0.01)).toBe(1);
    expect(heldOutProblemCount(2, 0.5)).toBe(1);
    expect(heldOutProblemCount(3, 0.5)).toBe(2);
    expect(heldOutProblemCount(1, 0.5)).toBe(0);
    expect(heldOutProblemCount(10, 0)).toBe(0);
  });

  it.skipIf(!PYTHON)("the Python reward functions read verdicts exactly as parseVerdict does and score them against the label", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "stepwiser-rewards-"));
    try {
      const write = (result: { files: ExportedFile[] }, from: string, to: string) => writeFileSync(path.join(dir, to), fileOf(result.files, from).content);
      write(await exportWith(), "reward.py", "verl_reward.py");
      write(await exportWith({ format: "openrlhf" }), "reward_func.py", "openrlhf_reward.py");
      write(await exportWith({ format: "trl" }), "reward_func.py", "trl_reward.py");
      const texts = [
        "Analysis ... Final Judgment: \\boxed{Positive}",
        "Final Judgment: \\boxed{negative}",
        "\\boxed{Positive} first, then changed my mind: \\boxed{Negative}",
        "\\boxed{\\text{Positive}}",
        "\\boxed { POSITIVE }",
        "\\boxed{\\textbf{ Negative }}",
        "\\boxed{Positive} and an unbalanced \\boxed{Negative",
        "\\boxed{Pos\\}itive}",
        "\\boxed{maybe}",
        "no box at all: Positive",
        "\\boxed{\\boxed{Negative}}",
        "\\boxed{Negative}\n",
        "\\boxed{Positive.}",
        "",
      ];
      const script = `
import json, sys, types
sys.path.insert(0, ${JSON.stringify(dir)})
torch = types.ModuleType("torch")
torch.float32 = "float32"
torch.tensor = lambda values, dtype=None: list(values)
sys.modules["torch"] = torch
import verl_reward, openrlhf_reward, trl_reward
texts = json.loads(sys.stdin.read())
prompt = "<|user|>Final Judgment: \\\\boxed{Positive}\\nFinal Judgment: \\\\boxed{Negative}<|assistant|>"
out = {
  "parsed": [verl_reward.parse_verdict(t) for t in texts],
  "verl_positive": [verl_reward.compute_score("stepwiser", t, "Positive", extra_info={"index": 0}) for t in texts],
  "verl_negative": [verl_reward.compute_score("stepwiser", t, "Negative") for t in texts],
  "openrlhf": openrlhf_reward.reward_func([prompt + t for t in texts], [prompt] * len(texts), ["Negative"] * len(texts)),
  "openrlhf_tensor_only": None,
  "trl": trl_reward.verdict_reward([[{"role": "assistant", "content": t}] for t in texts], label=["Positive"] * len(texts), prompts=[None] * len(texts)),
  "trl_plain": trl_reward.verdict_reward(texts, label=["Negative"] * len(texts)),
}
openrlhf_reward.RETURN_TENSOR_ONLY = True
out["openrlhf_tensor_only"] = openrlhf_reward.reward_func([prompt + "\\\\boxed{Negative}"], [prompt], ["Negative"])
print(json.dumps(out))
`;
      const result = JSON.parse(execFileSync("python3", ["-c", script], { input: JSON.stringify(texts), encoding: "utf8" })) as {
        parsed: Array<string | null>;
        verl_positive: number[];
        verl_negative: number[];
        openrlhf: { rewards: number[]; scores: number[]; extra_logs: { verdict_parsed: number[] } };
        openrlhf_tensor_only: number[];
        trl: number[];
        trl_plain: number[];
      };
      const expected = texts.map((t) => {
        const verdict = parseVerdict(t).verdict;
        return verdict === "unparseable" ? null : verdict;
      });
      expect(result.parsed).toEqual(expected);
      expect(expected.filter((v) => v !== null).length).toBeGreaterThan(4);
      const score = (label: string) => expected.map((v) => (v === label ? 1 : 0));
      expect(result.verl_positive).toEqual(score("Positive"));
      expect(result.verl_negative).toEqual(score("Negative"));
      // the prompt's own \boxed{Positive}/\boxed{Negative} must not count: only the response is read
      expect(result.openrlhf.rewards).toEqual(score("Negative"));
      expect(result.openrlhf.scores).toEqual(score("Negative"));
      expect(result.openrlhf.extra_logs.verdict_parsed).toEqual(expected.map((v) => (v === null ? 0 : 1)));
      expect(result.openrlhf_tensor_only).toEqual([1]);
      expect(result.trl).toEqual(score("Positive"));
      expect(result.trl_plain).toEqual(score("Negative"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  if (!PYTHON) it.skip("python3 is not on PATH: the Python reward functions were not run", () => {});
});
