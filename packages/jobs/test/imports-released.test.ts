import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MATH_SHEPHERD_QUIRKS, PRMBENCH_QUIRKS } from "@stepwiser/core";
import { rowCounts } from "./helpers";
import { connectJobQueue, importReportLines, runImport, storeFile, submitImport, type ImportOptionsInput, type ImportSummary, type JobQueue } from "../src";
import { generateMathShepherdFile } from "../src/testing/math-shepherd-file";
import { HUMAN_COMPLETION_NOTE } from "../src/kinds/import/write-solutions";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core/test/fixtures/imports");

/**
 * The generated Math-Shepherd file's records: 5,000 still make a file of two 1 MiB pieces and ten
 * batches of the import, with 25 quirky records (every quirk) and 10 broken ones (every breakage);
 * the full scale imports 100,000.
 */
const GENERATED_RECORDS = atScale({ default: 5_000, full: 100_000 });
const GENERATED_FILE = `math-shepherd-${GENERATED_RECORDS / 1000}k.jsonl`;
const QUIRKY_SHARE = 0.005;
const BROKEN_SHARE = 0.002;

describe("released files as imports (real Postgres)", () => {
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

  async function importBytes(fileName: string, content: Uint8Array | string, options: ImportOptionsInput) {
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    const pieces = Array.from({ length: Math.ceil(bytes.length / (1 << 20)) }, (_, i) => bytes.subarray(i << 20, (i + 1) << 20));
    const file = await storeFile(database.db, { fileName, purpose: "upload" }, pieces);
    const run = await submitImport(database.db, queue, { fileId: file.id, options });
    await runImport(database.db, run.id);
    return database.db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  it("PRM800K: the human step is stored rated +1 with its note, QC copies merge with both labellers, an empty record stores nothing", async () => {
    // The quirks fixture without its last (invalid) record.
    const lines = readFileSync(path.join(fixtures, "prm800k-released-quirks.jsonl"), "utf8").trim().split("\n").slice(0, 6);
    const run = await importBytes("prm800k-released.jsonl", lines.join("\n"), { format: "prm800k" });
    expect(run.status, run.error ?? "").toBe("completed");
    // 6 records: 1 ignored (label.steps: []), 5 read, of which the two quality-control copies are one solution.
    expect(run.summary).toMatchObject({ records: 5, written: 4, skipped: 1 });
    expect((run.summary as unknown as ImportSummary).report).toMatchObject({ policy: "fail", records: 6, readable: 5, ignored: 1, invalid: 0 });
    const [ignored] = await (async () => {
      const out = [];
      for await (const entry of importReportLines(database.db, run.id)) out.push(entry);
      return out;
    })();
    expect(ignored).toMatchObject({ kind: "ignored", line: 1, record: 0, field: "label.steps", reason: expect.stringContaining("label.steps is empty") });
    const solutions = await database.db.solution.findMany({
      where: { datasetId: run.datasetId! },
      include: { segmentations: { include: { chunks: { orderBy: { index: "asc" }, include: { humanLabels: { orderBy: { externalAuthor: "asc" } } } } } } },
      orderBy: { createdAt: "asc" },
    });
    expect(solutions).toHaveLength(4);
    const human = solutions.find((t) => (t.metadata as { human_completion_steps?: number[] }).human_completion_steps)!;
    const chunks = human.segmentations[0]!.chunks;
    expect(chunks.map((c) => c.humanLabels.map((l) => [l.rating, l.note]))).toEqual([[[1, null]], [[1, HUMAN_COMPLETION_NOTE]]]);
    expect((human.metadata as { alternatives: unknown[] }).alternatives).toHaveLength(2);
    const qc = solutions.find((t) => (t.metadata as { is_quality_control_question?: boolean }).is_quality_control_question)!;
    expect(qc.segmentations[0]!.chunks[0]!.humanLabels.map((l) => [l.externalAuthor, l.rating])).toEqual([
      ["a3c5e7f9-0000-4000-8000-000000000001", 1],
      ["a3c5e7f9-0000-4000-8000-000000000002", 1],
    ]);
  });

  it("PRMBench: released records become one solution per item, the all-correct items as the evaluator builds them; quirks listed; a malformed file stores nothing", async () => {
    const prmbench = path.resolve(fixtures, "../prmbench/prmbench-sample.jsonl");
    const lines = readFileSync(prmbench, "utf8").trim().split("\n");
    const run = await importBytes("prmbench-sample.jsonl", lines.join("\n"), { format: "prmbench" });
    expect(run.status, run.error ?? "").toBe("completed");
    const summary = run.summary as unknown as ImportSummary;
    // 28 records: one repeats an item (ignored); 27 items and the 3 all-correct ones of the redundancy records.
    expect(summary).toMatchObject({ written: 30, chunkLabels: 0 });
    expect(summary.report).toMatchObject({ records: 28, ignored: 1, invalid: 0 });
    expect(summary.report!.quirks).toEqual({ [PRMBENCH_QUIRKS.errorStepPastEnd]: 1, [PRMBENCH_QUIRKS.noErrorSteps]: 2 });
    const solutions = await database.db.solution.findMany({
      where: { datasetId: run.datasetId! },
      include: { problem: true, segmentations: { include: { chunks: { orderBy: { index: "asc" } } } } },
    });
    expect(new Set(solutions.map((s) => s.subset))).toEqual(new Set(["circular", "confidence", "counterfactual", "deception", "domain_inconsistency", "missing_condition", "redundency", "step_contradiction", "multi_solutions", "correct"]));
    const records = lines.map((line) => JSON.parse(line) as { idx: string; classification: string; modified_question: string; modified_process: string[]; original_question: string; original_process: string[]; error_steps: number[] });
    for (const record of records.slice(0, -1)) {
      const stored = solutions.find((s) => s.externalId === `${record.classification}_${record.idx}`)!;
      expect(stored.problem.text).toBe(record.modified_question);
      expect(stored.segmentations[0]!.chunks.map((c) => c.text)).toEqual(record.modified_process);
      expect((stored.metadata as { prmbench: { error_steps: number[] } }).prmbench.error_steps).toEqual(record.error_steps);
      const firstError = record.error_steps.filter((step) => step <= record.modified_process.length);
      expect(stored.sourceFirstErrorIndex).toBe(firstError.length ? Math.min(...firstError) - 1 : -1);
      if (record.classification === "redundency") {
        const correct = solutions.find((s) => s.externalId === `correct_${record.idx}`)!;
        expect(correct.subset).toBe("correct");
        expect(correct.problem.text).toBe(record.original_question);
        expect(correct.segmentations[0]!.chunks.map((c) => c.text)).toEqual(record.original_process);
        expect(correct.sourceFirstErrorIndex).toBe(-1);
      }
    }
    const [ignored] = await (async () => {
      const out = [];
      for await (const entry of importReportLines(database.db, run.id)) out.push(entry);
      return out;
    })();
    expect(ignored).toMatchObject({ kind: "ignored", line: 28, field: "idx", reason: PRMBENCH_QUIRKS.duplicateItem });

    // A record without error_steps: the file fails at its line and nothing is stored.
    const before = await rowCounts(database.db);
    const broken = [...lines.slice(0, 3), JSON.stringify({ ...JSON.parse(lines[3]!), error_steps: undefined }), ...lines.slice(4, 6)];
    const failed = await importBytes("prmbench-broken.jsonl", broken.join("\n"), { format: "prmbench", datasetName: "prmbench broken" });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^prmbench-broken\.jsonl:4, record 3, field "error_steps": missing/);
    const after = await rowCounts(database.db);
    expect({ ...after, runs: before.runs, storedFiles: before.storedFiles, auditLogs: before.auditLogs }).toEqual(before);
    expect(await database.db.dataset.count({ where: { name: "prmbench broken" } })).toBe(0);
  });

  it("Math-Shepherd: the quirky records import with their labels; the unreadable one fails the import under the default policy and stores nothing", async () => {
    const all = readFileSync(path.join(fixtures, "math-shepherd-released-quirks.jsonl"), "utf8").trim().split("\n");
    const failed = await importBytes("ms-all.jsonl", all.join("\n"), { format: "math-shepherd", datasetName: "ms all" });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^ms-all\.jsonl:5, record 4, field "input": has no "Step 1:"/);
    expect(await database.db.dataset.count({ where: { name: "ms all" } })).toBe(0);

    const run = await importBytes("ms-readable.jsonl", all.slice(0, 4).join("\n"), { format: "math-shepherd", datasetName: "ms readable" });
    expect(run.status, run.error ?? "").toBe("completed");
    const solutions = await database.db.solution.findMany({
      where: { datasetId: run.datasetId! },
      include: { problem: true, segmentations: { include: { chunks: { orderBy: { index: "asc" }, include: { labels: true } } } } },
    });
    const rocky = solutions.find((t) => t.problem.text.startsWith("Mr. Rocky"))!;
    expect(rocky.problem.text).toBe("Mr. Rocky went to the market to sell his handmade crafts. He sold 5 crafts for $3 each. How much did he earn?");
    expect(rocky.segmentations[0]!.chunks.map((c) => c.labels.map((l) => l.label))).toEqual([["Positive"], ["Negative"]]);
  });

  it(`a ${GENERATED_RECORDS.toLocaleString("en")}-record Math-Shepherd file with 0.5 % quirky and 0.2 % broken records: skip imports the rest with exact counts and lists exactly the broken ones; fail stores nothing`, async () => {
    const generated = generateMathShepherdFile({ records: GENERATED_RECORDS, quirkyShare: QUIRKY_SHARE, brokenShare: BROKEN_SHARE, stepsPerRecord: 2, seed: 24 });
    const brokenCount = Math.round(GENERATED_RECORDS * BROKEN_SHARE);
    expect(generated.broken).toHaveLength(brokenCount);
    // Every quirk and every breakage occurs, and the file spans more than one stored piece.
    expect(Object.values(generated.quirky).every((n) => n > 0)).toBe(true);
    expect(new Set(generated.broken.map((b) => b.breakage)).size).toBe(4);
    expect(generated.bytes.length).toBeGreaterThan(1 << 20);

    const failed = await importBytes(GENERATED_FILE, generated.bytes, { format: "math-shepherd", datasetName: "ms generated fail" });
    expect(failed.status).toBe("failed");
    const firstBroken = generated.broken.reduce((a, b) => (a.line < b.line ? a : b));
    expect(failed.error).toMatch(new RegExp(`^${GENERATED_FILE.replaceAll(".", "\\.")}:${firstBroken.line}, record ${firstBroken.record}`));
    expect(await database.db.dataset.count({ where: { name: "ms generated fail" } })).toBe(0);
    expect(await database.db.importReportEntry.count({ where: { runId: failed.id } })).toBe(0);

    const run = await importBytes(GENERATED_FILE, generated.bytes, { format: "math-shepherd", datasetName: "ms generated skip", onInvalid: "skip" });
    expect(run.status, run.error ?? "").toBe("completed");
    const summary = run.summary as unknown as ImportSummary;
    expect(summary).toMatchObject({ records: generated.readable, written: generated.readable, chunks: generated.chunks, chunkLabels: generated.chunks });
    expect(summary.report).toMatchObject({ policy: "skip", maxInvalidShare: 0.05, records: GENERATED_RECORDS, readable: GENERATED_RECORDS - brokenCount, invalid: brokenCount, ignored: 0 });
    expect(summary.report!.quirks).toEqual({
      [MATH_SHEPHERD_QUIRKS.lowercaseMarker]: generated.quirky["lowercase-marker"],
      [MATH_SHEPHERD_QUIRKS.noMarker]: generated.quirky["no-marker"],
      [MATH_SHEPHERD_QUIRKS.tagInProblem]: generated.quirky["tag-in-problem"],
    });
    expect(Object.values(summary.report!.invalidByReason).reduce((a, b) => a + b, 0)).toBe(brokenCount);
    expect(await database.db.solution.count({ where: { datasetId: run.datasetId! } })).toBe(GENERATED_RECORDS - brokenCount);

    const listed: { line: number; record: number | null; kind: string; file: string }[] = [];
    for await (const entry of importReportLines(database.db, run.id)) listed.push(entry);
    expect(listed.map((e) => [e.line, e.record, e.kind, e.file])).toEqual(
      [...generated.broken].sort((a, b) => a.line - b.line).map((b) => [b.line, b.record, "invalid", GENERATED_FILE]),
    );
  }, 240_000);
});
