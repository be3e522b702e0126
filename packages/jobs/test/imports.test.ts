import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseFieldMapping, type ImportFormat } from "@stepwiser/core";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, runImport, storeFile, submitImport, type ImportOptionsInput, type JobQueue } from "../src";
import { dataRowCounts } from "./helpers";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core/test/fixtures/imports");

interface MalformedCase {
  file: string;
  format: ImportFormat;
  mapping?: string;
  line: number;
  field: string | null;
  message: string;
}

describe("imports as jobs (real Postgres): every format, duplicates, all or nothing", () => {
  let database: TestDatabase;
  let queue: JobQueue;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  /** Stores the bytes as an upload, submits and executes the import here; returns the finished run. */
  async function importBytes(fileName: string, content: Uint8Array | string, options: ImportOptionsInput, batchSize = 500) {
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    // Small pieces, so the readers see records cut across piece boundaries as from a real stream.
    const pieces = Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) => bytes.subarray(i * 4096, (i + 1) * 4096));
    const file = await storeFile(database.db, { fileName, purpose: "upload" }, pieces);
    const run = await submitImport(database.db, queue, { fileId: file.id, options });
    await runImport(database.db, run.id, { batchSize });
    return database.db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  const fixture = (name: string) => readFileSync(path.join(fixtures, name));

  it("PRM800K: the chosen path as chunks, ratings as imported human labels with their labeller", async () => {
    const run = await importBytes("prm800k-phase2.jsonl", fixture("prm800k-phase2.jsonl"), { format: "prm800k" });
    expect(run.status, run.error ?? "").toBe("completed");
    const lines = fixture("prm800k-phase2.jsonl").toString("utf8").trim().split("\n").map((l) => JSON.parse(l));
    const solutions = await database.db.solution.findMany({
      where: { datasetId: run.datasetId! },
      include: { segmentations: { include: { chunks: { orderBy: { index: "asc" }, include: { humanLabels: true } } } } },
    });
    expect(solutions).toHaveLength(lines.length);
    for (const t of solutions) {
      const chunks = t.segmentations[0]!.chunks;
      expect(t.segmentations[0]!.method).toBe("prm800k-steps");
      for (const c of chunks) expect(t.text.slice(c.startOffset, c.endOffset)).toBe(c.text);
      for (const label of chunks.flatMap((c) => c.humanLabels)) {
        expect(label.source).toBe("imported");
        expect(label.externalAuthor).toBe((t.metadata as { labeler?: string }).labeler ?? null);
      }
      const ratings = chunks.map((c) => c.humanLabels[0]?.rating ?? null);
      const firstWrong = ratings.indexOf(-1);
      if (firstWrong >= 0) expect(t.sourceFirstErrorIndex).toBe(firstWrong);
    }
    const summary = run.summary as { written: number; humanLabels: number };
    expect(summary.written).toBe(lines.length);
    expect(await database.db.humanLabel.count({ where: { chunk: { segmentation: { solution: { datasetId: run.datasetId! } } } } })).toBe(summary.humanLabels);
  });

  it("PRM800K: the same path rated by two labellers is one solution carrying both people's ratings, and importing it again adds none", async () => {
    const [line] = fixture("prm800k-phase2.jsonl").toString("utf8").trim().split("\n");
    const record = JSON.parse(line!) as { labeler: string };
    const twice = [JSON.stringify({ ...record, labeler: "labeller-a" }), JSON.stringify({ ...record, labeler: "labeller-b" })].join("\n");
    const run = await importBytes("prm800k-twice.jsonl", twice, { format: "prm800k", datasetName: "two labellers" });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.summary).toMatchObject({ records: 2, written: 1, skipped: 1 });
    const labels = async () =>
      database.db.humanLabel.findMany({
        where: { chunk: { segmentation: { solution: { datasetId: run.datasetId! } } } },
        select: { chunkId: true, externalAuthor: true, rating: true },
        orderBy: [{ chunkId: "asc" }, { externalAuthor: "asc" }],
      });
    const stored = await labels();
    const perLabeller = (who: string) => stored.filter((l) => l.externalAuthor === who).map((l) => [l.chunkId, l.rating]);
    expect(perLabeller("labeller-a").length).toBeGreaterThan(0);
    expect(perLabeller("labeller-b")).toEqual(perLabeller("labeller-a"));
    expect(stored).toHaveLength(2 * perLabeller("labeller-a").length);

    const again = await importBytes("prm800k-twice-again.jsonl", twice, { format: "prm800k", datasetId: run.datasetId! });
    expect(again.summary).toMatchObject({ records: 2, written: 0, skipped: 2, humanLabels: 0 });
    expect(await labels()).toEqual(stored);
  });

  it("Math-Shepherd: steps from the ки tags, hard labels stored as Abs-Q labels of the import run", async () => {
    const run = await importBytes("math-shepherd.jsonl", fixture("math-shepherd.jsonl"), { format: "math-shepherd" });
    expect(run.status, run.error ?? "").toBe("completed");
    const records = fixture("math-shepherd.jsonl").toString("utf8").trim().split("\n").map((l) => JSON.parse(l) as { input: string; label: string });
    const tags = records.reduce((n, r) => n + r.input.split("ки").length - 1, 0);
    const labels = await database.db.chunkLabel.findMany({ where: { runId: run.id }, include: { chunk: true } });
    expect(labels).toHaveLength(tags);
    expect(new Set(labels.map((l) => `${l.rule} ${l.paramsKey}`))).toEqual(new Set(['abs_q {"evidence":"own-prefix"}']));
    const minus = records.reduce((n, r) => n + (r.label.match(/ -(\n|$)/g)?.length ?? 0), 0);
    expect(labels.filter((l) => l.label === "Negative").length).toBeGreaterThanOrEqual(minus > 0 ? 1 : 0);
    for (const l of labels) expect(l.chunk.text).not.toContain("ки");
  });

  it("generic JSONL with a field mapping, and duplicates skipped or replaced by id or content hash", async () => {
    const mapping = parseFieldMapping("problem=question,steps=solution.steps,labels=solution.labels,id=uid,answer=gold");
    const line = (uid: string, steps: string[], labels: boolean[]) => JSON.stringify({ uid, question: `What is 2+${uid.length}?`, gold: "4", solution: { steps, labels } });
    const first = [line("a", ["2+2", "=4"], [true, true]), line("b", ["2+3", "=5"], [true, false])].join("\n");
    const run = await importBytes("generic.jsonl", first, { format: "jsonl", mapping, datasetName: "generic" });
    expect(run.status, run.error ?? "").toBe("completed");
    const datasetId = run.datasetId!;
    expect(await database.db.solution.count({ where: { datasetId } })).toBe(2);

    // The same file again with "skip": recognised as already imported, nothing written.
    const again = await importBytes("generic.jsonl", first, { format: "jsonl", mapping, datasetName: "generic" });
    expect(again.status).toBe("completed");
    expect(again.datasetId).toBe(datasetId);
    expect((again.summary as { duplicateOfRunId?: string }).duplicateOfRunId).toBe(run.id);
    expect(await database.db.dataset.count({ where: { name: "generic" } })).toBe(1);

    // Into the dataset: "a" unchanged (same content) and "c" new are skipped / written.
    const more = [line("a", ["2+2", "=4"], [true, true]), line("c", ["x"], [false])].join("\n");
    const appended = await importBytes("more.jsonl", more, { format: "jsonl", mapping, datasetId });
    expect(appended.summary).toMatchObject({ records: 2, written: 1, skipped: 1, replaced: 0 });
    expect(await database.db.solution.count({ where: { datasetId } })).toBe(3);

    // "replace": a changed record with a known id takes the old one's place.
    const changed = line("b", ["2+3", "=6", "so 6"], [true, false, false]);
    const replaced = await importBytes("changed.jsonl", changed, { format: "jsonl", mapping, datasetId, duplicates: "replace" });
    expect(replaced.summary).toMatchObject({ records: 1, written: 1, replaced: 1 });
    const b = await database.db.solution.findFirstOrThrow({ where: { datasetId, externalId: "b" }, include: { segmentations: { include: { chunks: true } } } });
    expect(b.segmentations[0]!.chunks).toHaveLength(3);
    expect(await database.db.solution.count({ where: { datasetId } })).toBe(3);
  });

  it("ProcessBench: --subset names every record's subset", async () => {
    const records = JSON.parse(readFileSync(DEMO_PROCESSBENCH_FILES[0]!, "utf8")) as unknown[];
    const run = await importBytes("gsm8k-part.json", JSON.stringify(records.slice(0, 30)), { format: "processbench", subset: "gsm8k-hard" });
    expect(run.status, run.error ?? "").toBe("completed");
    const subsets = await database.db.solution.groupBy({ by: ["subset"], where: { datasetId: run.datasetId! }, _count: true });
    expect(subsets).toEqual([{ subset: "gsm8k-hard", _count: 30 }]);
  });

  it("a bad record after many good batches leaves the database exactly as it was", async () => {
    const records = JSON.parse(readFileSync(DEMO_PROCESSBENCH_FILES[1]!, "utf8")) as Array<Record<string, unknown>>;
    records[950] = { ...records[950], steps: "not a list" };
    const before = await dataRowCounts(database.db);
    const run = await importBytes("math-late-error.json", JSON.stringify(records, null, 1), { format: "processbench" }, 50);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^math-late-error\.json:\d+, record 950, field "steps"/);
    expect(await dataRowCounts(database.db)).toEqual(before);
  });

  const corpusDir = path.join(fixtures, "malformed");
  const corpus = JSON.parse(readFileSync(path.join(corpusDir, "expected.json"), "utf8")) as MalformedCase[];

  it("the malformed corpus covers every file in it, at least 30, across all formats", () => {
    const files = readdirSync(corpusDir).filter((f) => f !== "expected.json" && !f.endsWith(".ts") && !f.endsWith(".mjs"));
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    expect(new Set(corpus.map((c) => c.file))).toEqual(new Set(files));
    expect(new Set(corpus.map((c) => c.format))).toEqual(new Set(["processbench", "prm800k", "math-shepherd", "jsonl"]));
  });

  it.each(corpus.map((c) => [c.file, c] as const))("malformed %s fails naming file, line and field, and writes nothing", async (_name, c) => {
    const before = await dataRowCounts(database.db);
    const options: ImportOptionsInput = { format: c.format, ...(c.mapping ? { mapping: parseFieldMapping(c.mapping) } : {}) };
    const run = await importBytes(c.file, readFileSync(path.join(corpusDir, c.file)), options, 1);
    expect(run.status).toBe("failed");
    expect(run.error).toContain(`${c.file}:${c.line}`);
    if (c.field) expect(run.error).toContain(`field "${c.field}"`);
    expect(run.error).toContain(c.message);
    expect(await dataRowCounts(database.db)).toEqual(before);
  });
});
