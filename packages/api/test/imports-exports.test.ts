import { readFileSync } from "node:fs";
import type { FieldMapping } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { bytesOf, connectJobQueue, createSimWorldDataset, readStoredFile, runExport, runImport, storeFile, type JobQueue } from "@stepwiser/jobs";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, type RouterInputs } from "../src";
import type { SessionUser } from "../src/trpc";
import { createUser } from "./annotation-fixtures";

const MAPPING: FieldMapping = { problem: "question", steps: "steps", labels: "labels", labelKind: "hard", id: "uid" };

/** A generic JSONL file of `count` records; line `badLine` (1-based) has its steps as a string instead of an array. */
function genericJsonl(count: number, badLine: number | null): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    const steps = [`Step one of record ${i}.`, "Step two.", "Step three.", "Step four.", "The answer is 4."];
    const record = {
      uid: `rec-${i}`,
      question: i === 1 ? `What is 2 + 2? ${"Think carefully. ".repeat(60)}` : `What is ${i} + 2?`,
      steps: i === badLine ? "not an array" : steps,
      labels: steps.map((_, k) => (k < 3 ? "+" : "-")),
    };
    lines.push(JSON.stringify(record));
  }
  return `${lines.join("\n")}\n`;
}

/** Math-Shepherd records: problem, steps tagged with ки, and the same text with +/− per step. */
function mathShepherdJsonl(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const problem = `Tom has ${i + 3} apples and buys ${i + 1} more. How many apples does he have?`;
    const right = i % 2 === 0;
    const steps = [`Step 1: He starts with ${i + 3} apples.`, `Step 2: ${i + 3} + ${i + 1} = ${right ? 2 * i + 4 : 2 * i + 5}.`, `Step 3: The answer is: ${right ? 2 * i + 4 : 2 * i + 5}`];
    const marks = right ? ["+", "+", "+"] : ["+", "-", "-"];
    lines.push(
      JSON.stringify({
        input: `${problem} ${steps.map((s) => `${s} ки`).join("\n")}`,
        label: `${problem} ${steps.map((s, k) => `${s} ${marks[k]}`).join("\n")}`,
        task: "GSM8K",
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}

describe("imports and exports through tRPC (real Postgres, jobs run in the test)", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let researcher: SessionUser;
  let viewer: SessionUser;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
    researcher = await createUser(database.db, "researcher", "Rhea");
    viewer = await createUser(database.db, "viewer", "Vic");
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  const callerFor = (user: SessionUser) => appRouter.createCaller({ db: database.db, getQueue: async () => queue, user });
  const upload = (fileName: string, content: string) => storeFile(database.db, { fileName, purpose: "upload", createdById: researcher.id }, bytesOf(content));
  const failure = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  it("preview shows the first 20 records of a 25-line JSONL, each a compact solution or its error", async () => {
    const file = await upload("solutions.jsonl", genericJsonl(25, 3));
    const preview = await callerFor(researcher).import.preview({ fileId: file.id, format: "jsonl", mapping: MAPPING });

    expect(preview.fileName).toBe("solutions.jsonl");
    expect(preview.rows.map((r) => r.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const bad = preview.rows[2]!;
    expect(bad.solution).toBeNull();
    expect(bad.error).toMatch(/^solutions\.jsonl:3\b/);
    expect(bad.error).toContain("steps");
    expect(preview.rows.filter((r) => r.error !== null)).toHaveLength(1);

    const first = preview.rows[0]!.solution!;
    expect(first.externalId).toBe("rec-1");
    expect(first.steps).toBe(5);
    expect(first.firstSteps).toEqual(["Step one of record 1.", "Step two.", "Step three."]);
    expect(first.labels).toEqual({ ratings: 0, hard: 5, soft: 0 });
    expect(first.problem.length).toBeLessThanOrEqual(301);
    expect(first.problem.endsWith("…")).toBe(true);
    expect(preview.rows[1]!.solution!.problem).toBe("What is 2 + 2?");
  });

  it("preview marks a record the dataset allows with nothing to import as ignored, and names the quirks a reader accepted", async () => {
    const fixture = readFileSync(new URL("../../core/test/fixtures/imports/prm800k-released-quirks.jsonl", import.meta.url), "utf8");
    const file = await upload("prm800k-released.jsonl", fixture);
    const preview = await callerFor(researcher).import.preview({ fileId: file.id, format: "prm800k" });
    expect(preview.rows.map((r) => (r.solution ? "solution" : r.error !== null ? "error" : "ignored"))).toEqual([
      "ignored",
      "solution",
      "solution",
      "solution",
      "solution",
      "solution",
      "error",
    ]);
    expect(preview.rows[0]).toMatchObject({ solution: null, error: null, ignored: expect.stringContaining("label.steps is empty") });
    expect(preview.rows[1]!.quirks).toEqual([
      "PRM800K: human-written step rated +1 (README)",
      "PRM800K: alternative replaced by a human step, kept with its rating in the solution's metadata",
      "PRM800K: alternative replaced by a human step, kept with its rating in the solution's metadata",
    ]);
    expect(preview.rows[1]!.solution!.labels.ratings).toBe(2);
    expect(preview.rows[5]!.quirks).toEqual([]);
  });

  it("an import whose file has a bad line fails naming the file, line and field, and stores no dataset", async () => {
    const file = await upload("solutions.jsonl", genericJsonl(25, 3));
    const datasetsBefore = await database.db.dataset.count();
    const { runId } = await callerFor(researcher).import.start({ fileId: file.id, options: { format: "jsonl", mapping: MAPPING, datasetName: "Broken" } });
    await runImport(database.db, runId);
    const run = await database.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^solutions\.jsonl:3, record 2, field "steps"/);
    expect(await database.db.dataset.count()).toBe(datasetsBefore);
  });

  let importRunId: string;
  let chunkLabels: number;

  it("start queues the import of an upload; once it has run, the dataset exists and the import list shows it", async () => {
    const file = await upload("shepherd.jsonl", mathShepherdJsonl(12));
    const { runId } = await callerFor(researcher).import.start({ fileId: file.id, options: { format: "math-shepherd", datasetName: "Shepherd sample" } });
    expect((await database.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("queued");
    await runImport(database.db, runId);

    const run = await database.db.run.findUniqueOrThrow({ where: { id: runId }, include: { dataset: true } });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.dataset?.name).toBe("Shepherd sample");
    expect(await database.db.solution.count({ where: { datasetId: run.datasetId! } })).toBe(12);

    const listed = (await callerFor(viewer).import.list()).find((r) => r.id === runId)!;
    expect(listed).toMatchObject({ status: "completed", format: "math-shepherd", fileName: "shepherd.jsonl", dataset: { id: run.datasetId, name: "Shepherd sample" } });
    expect(listed.summary).toMatchObject({ records: 12, written: 12, skipped: 0, replaced: 0, chunks: 36 });
    importRunId = runId;
    const summary = listed.summary!;
    chunkLabels = "chunkLabels" in summary ? summary.chunkLabels : -1;
    expect(chunkLabels).toBe(36);
  });

  it("sources offer the import run with the rule it stored labels under and how many chunks", async () => {
    const sources = await callerFor(viewer).export.sources();
    const source = sources.labelRuns.find((r) => r.id === importRunId)!;
    expect(source).toMatchObject({ kind: "import", dataset: { name: "Shepherd sample" } });
    expect(source.rules).toEqual([{ rule: { rule: "abs-q", evidence: "own-prefix" }, storedRule: "abs_q", paramsKey: '{"evidence":"own-prefix"}', name: "abs-q(evidence=own-prefix)", chunks: chunkLabels }]);
    expect(sources.predictionRuns).toEqual([]);
  });

  it("a labels export of the import run writes one JSONL file, listed with its size under the source run", async () => {
    const { runId } = await callerFor(researcher).export.start({ spec: { kind: "labels", runId: importRunId } });
    await runExport(database.db, runId);

    const [listed] = await callerFor(viewer).export.list({ sourceRunId: importRunId });
    expect(listed).toMatchObject({ id: runId, status: "completed", spec: { kind: "labels", runId: importRunId }, source: { id: importRunId, kind: "import" } });
    expect(listed!.files).toHaveLength(1);
    const file = listed!.files[0]!;
    expect(file.fileName).toBe(`labels-${importRunId}.jsonl`);
    expect(file.sizeBytes).toBeGreaterThan(0);
    const stored = await database.db.storedFile.findUniqueOrThrow({ where: { id: file.id } });
    expect(Number(stored.sizeBytes)).toBe(file.sizeBytes);
    expect(listed!.report).toMatchObject({ chunks: 36 });
    expect(await callerFor(viewer).export.list({ sourceRunId: "some-other-run" })).toEqual([]);
  });

  it("a training set from the import run's labels reports rows per split", async () => {
    const { runId } = await callerFor(researcher).export.start({
      spec: { kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "abs-q" }, format: "trl", seed: 3, heldOutFraction: 0.25 },
    });
    await runExport(database.db, runId);
    const listed = (await callerFor(researcher).export.list({})).find((r) => r.id === runId)!;
    expect(listed.status, listed.error ?? "").toBe("completed");
    expect(listed.splits.map((s) => s.split).sort()).toEqual(["test", "train"]);
    for (const split of listed.splits) expect(split.rows).toBe(split.positive + split.negative);
    expect(listed.files.map((f) => f.fileName)).toEqual(expect.arrayContaining(["train.jsonl", "test.jsonl"]));
    for (const f of listed.files) expect(f.sizeBytes).toBeGreaterThan(0);
  });

  it("Parquet: a verl export uploaded back previews row by row and imports through the field mapping; a text file is not Parquet", async () => {
    const { runId: exportRunId } = await callerFor(researcher).export.start({
      spec: { kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "abs-q" }, format: "verl", seed: 3, heldOutFraction: 0 },
    });
    await runExport(database.db, exportRunId);
    const exported = (await callerFor(researcher).export.list({})).find((r) => r.id === exportRunId)!;
    expect(exported.status, exported.error ?? "").toBe("completed");
    const train = exported.files.find((f) => f.fileName === "train.parquet")!;
    const trainRows = exported.splits.find((s) => s.split === "train")!.rows;
    const parts: Uint8Array[] = [];
    for await (const part of readStoredFile(database.db, train.id)) parts.push(part);
    const file = await storeFile(database.db, { fileName: "train.parquet", purpose: "upload", createdById: researcher.id }, parts);

    const mapping = { id: "extra_info.index", problem: "prompt.0.content", answer: "reward_model.ground_truth", text: "reward_model.ground_truth", split: "lines" as const };
    const preview = await callerFor(researcher).import.preview({ fileId: file.id, format: "parquet", mapping });
    expect(preview.fileName).toBe("train.parquet");
    expect(preview.rows.map((r) => r.line)).toEqual(Array.from({ length: Math.min(20, trainRows) }, (_, i) => i + 1));
    for (const row of preview.rows) {
      expect(row.error).toBeNull();
      expect(row.solution!.externalId).toBe(String(row.line - 1));
      expect(row.solution!.firstSteps).toHaveLength(1);
      expect(row.solution!.firstSteps[0]).toMatch(/^(Positive|Negative)$/);
    }

    const noMapping = await failure(callerFor(researcher).import.start({ fileId: file.id, options: { format: "parquet" } }));
    expect(noMapping).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/a Parquet import needs a field mapping/) });

    const { runId } = await callerFor(researcher).import.start({ fileId: file.id, options: { format: "parquet", mapping, datasetName: "verl back" } });
    await runImport(database.db, runId);
    const listed = (await callerFor(viewer).import.list()).find((r) => r.id === runId)!;
    expect(listed).toMatchObject({ status: "completed", format: "parquet", fileName: "train.parquet" });
    expect(listed.summary).toMatchObject({ records: trainRows, written: trainRows, chunks: trainRows });

    const text = await upload("solutions.jsonl", genericJsonl(5, 99));
    const notParquet = await callerFor(researcher).import.preview({ fileId: text.id, format: "parquet", mapping: MAPPING });
    expect(notParquet.rows).toEqual([{ line: 1, solution: null, ignored: null, quirks: [], error: 'solutions.jsonl: not a Parquet file: it does not start with the bytes "PAR1"' }]);
  });

  it("viewers may look but not import or export", async () => {
    const file = await upload("viewer.jsonl", mathShepherdJsonl(1));
    const runsBefore = await database.db.run.count();
    const attempts = [
      () => callerFor(viewer).import.start({ fileId: file.id, options: { format: "math-shepherd" } }),
      () => callerFor(viewer).import.preview({ fileId: file.id, format: "math-shepherd" }),
      () => callerFor(viewer).export.start({ spec: { kind: "labels", runId: importRunId } }),
    ];
    for (const attempt of attempts) expect(await failure(attempt())).toMatchObject({ code: "FORBIDDEN" });
    expect(await database.db.run.count()).toBe(runsBefore);
  });

  it("a bad export spec is BAD_REQUEST naming the field, and nothing is queued", async () => {
    const runsBefore = await database.db.run.count({ where: { kind: "export" } });
    const start = (spec: RouterInputs["export"]["start"]["spec"]) => () => callerFor(researcher).export.start({ spec });
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [start({ kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "abs-q" }, format: "verl", heldOutFraction: 0.9 }), /heldOutFraction/],
      [start({ kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "rel-ratio", gamma: 0.7 }, format: "verl" }), /field "labelRule".*abs-q/],
      [start({ kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "abs-q" }, format: "verl", minPromptChars: 50, maxPromptChars: 10 }), /minPromptChars/],
      // Imported labels have no confidence: a threshold would leave every row out.
      [start({ kind: "training-set", annotateRunId: importRunId, labelRule: { rule: "abs-q" }, format: "verl", minConfidence: 0.8 }), /field "minConfidence".*stored no label confidence/],
      [start({ kind: "predictions", runId: importRunId }), /field "runId".*benchmark or judge/],
      [start({ kind: "labels", runId: "no-such-run" }), /field "runId".*does not exist/],
    ];
    for (const [attempt, message] of cases) {
      const error = await failure(attempt());
      expect(error).toBeInstanceOf(TRPCError);
      expect(error).toMatchObject({ code: "BAD_REQUEST" });
      expect((error as Error).message).toMatch(message);
    }
    expect(await database.db.run.count({ where: { kind: "export" } })).toBe(runsBefore);
  });

  it("an import of a file that is not an upload, or options that contradict each other, is BAD_REQUEST", async () => {
    const [exportFile] = (await callerFor(researcher).export.list({ sourceRunId: importRunId }))[0]!.files;
    expect(await failure(callerFor(researcher).import.start({ fileId: exportFile!.id, options: { format: "math-shepherd" } }))).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/no uploaded file/),
    });
    const file = await upload("needs-mapping.jsonl", genericJsonl(2, null));
    const error = await failure(callerFor(researcher).import.start({ fileId: file.id, options: { format: "jsonl" } }));
    expect(error).toMatchObject({ code: "BAD_REQUEST" });
    expect((error as Error).message).toMatch(/mapping/);
    expect(await failure(callerFor(researcher).import.preview({ fileId: "missing", format: "prm800k" }))).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/no uploaded file missing/) });
  });

  it("an offline annotate run: launched without a job, its batch requests exported as a file, a malformed output refused by the import run", async () => {
    const { db } = database;
    await db.endpoint.create({ data: { name: "offline-policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 4 } });
    const { datasetId } = await createSimWorldDataset(db, { name: "offline", problems: 3, seed: 5 });
    const caller = callerFor(researcher);
    const { runId } = await caller.run.launch({ kind: "annotate", config: { datasetId, policyEndpoint: "offline-policy", rollouts: 2, segmentationMethod: "self-segmented" }, offline: true });
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("queued");
    expect(await queue.fetch("run", { batchSize: 10 })).toEqual([]);
    const refused = await failure(caller.run.launch({ kind: "segment", config: { datasetId }, offline: true }));
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).message).toContain("offline execution supports annotate and judge");

    const exported = await caller.export.start({ spec: { kind: "batch-requests", runId } });
    await runExport(db, exported.runId);
    const [listed] = await caller.export.list({ sourceRunId: runId });
    expect(listed!.status).toBe("completed");
    let text = "";
    for await (const part of readStoredFile(db, listed!.files[0]!.id)) text += new TextDecoder().decode(part);
    const requests = text.trim().split("\n").map((line) => JSON.parse(line) as { custom_id: string; url: string; body: { n: number; model: string } });
    const chunks = await db.chunk.count({ where: { segmentation: { method: "self-segmented", solution: { datasetId } } } });
    expect(requests).toHaveLength(chunks);
    for (const r of requests) expect(r).toMatchObject({ url: "/v1/chat/completions", body: { n: 2, model: "sim-policy" } });

    const output = await upload("results.jsonl", `${JSON.stringify({ id: "x", custom_id: requests[0]!.custom_id, response: { status_code: 200, body: { choices: [] } }, error: null })}\n`);
    const imported = await caller.import.startBatchOutput({ fileId: output.id, runId });
    await runImport(db, imported.runId, { queue });
    const importRun = await db.run.findUniqueOrThrow({ where: { id: imported.runId } });
    expect(importRun.status).toBe("failed");
    expect(importRun.error).toMatch(/^results\.jsonl:1, field "response\.body/);
    expect(await db.rollout.count({ where: { runId } })).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("queued");
  });
});
