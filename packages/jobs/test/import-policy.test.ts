import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InputError, outcomesOfValues, parseFieldMapping, type FormatReader, type ImportOutcome } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  connectJobQueue,
  ImportReportTally,
  importReportLines,
  readRunConfig,
  runImport,
  storeFile,
  submitImport,
  type ImportOptionsInput,
  type ImportSummary,
  type JobQueue,
} from "../src";
import { List, Utf8 } from "apache-arrow";
import { dataRowCounts } from "./helpers";
import { nullable, writeParquetFile } from "./parquet-files";

const summaryOf = (run: { summary: unknown }) => run.summary as ImportSummary;
const malformed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core/test/fixtures/imports/malformed");
const mapping = parseFieldMapping("problem=question,steps=steps,id=uid");
const good = (i: number) => JSON.stringify({ uid: `r${i}`, question: `What is ${i} + 1?`, steps: [`${i} + 1`, `= ${i + 1}`] });

/**
 * 40 readable records and 4 unreadable ones: steps of the wrong type (line 3), a line that is not JSON (line 11),
 * a missing problem (line 20), a NUL character the database cannot hold (line 44). 4 of 44 = 9.1 %.
 */
function fileWithBadRecords(): string {
  const lines: string[] = [];
  let next = 0;
  for (let line = 1; line <= 44; line++) {
    if (line === 3) lines.push(JSON.stringify({ uid: "bad-steps", question: "q", steps: 42 }));
    else if (line === 11) lines.push("{not json");
    else if (line === 20) lines.push(JSON.stringify({ uid: "no-question", steps: ["a"] }));
    else if (line === 44) lines.push(JSON.stringify({ uid: "nul", question: "a\u0000b", steps: ["x"] }));
    else lines.push(good(next++));
  }
  return `${lines.join("\n")}\n`;
}

describe("import policy for invalid records (real Postgres): fail stores nothing, skip stores the rest and reports", () => {
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

  async function importText(fileName: string, content: string | Buffer, options: ImportOptionsInput, batchSize = 7) {
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : new Uint8Array(content);
    const pieces = Array.from({ length: Math.ceil(bytes.length / 1024) }, (_, i) => bytes.subarray(i * 1024, (i + 1) * 1024));
    const file = await storeFile(database.db, { fileName, purpose: "upload" }, pieces);
    const run = await submitImport(database.db, queue, { fileId: file.id, options });
    await runImport(database.db, run.id, { batchSize });
    return database.db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  const entriesOf = async (runId: string) => {
    const lines = [];
    for await (const line of importReportLines(database.db, runId)) lines.push(line);
    return lines;
  };

  it("skip: every readable record stored in one import, each invalid one listed with file, line, record, field and reason", async () => {
    const run = await importText("bad-records.jsonl", fileWithBadRecords(), { format: "jsonl", mapping, onInvalid: "skip", maxInvalidShare: 0.1 });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(await database.db.solution.count({ where: { datasetId: run.datasetId! } })).toBe(40);
    const summary = summaryOf(run);
    expect(summary).toMatchObject({ records: 40, written: 40 });
    expect(summary.report).toEqual({
      policy: "skip",
      maxInvalidShare: 0.1,
      records: 44,
      readable: 40,
      invalid: 4,
      invalidByReason: {
        "steps: expected an array of step strings, got number (mapped to steps)": 1,
        "not valid JSON (Expected property name or '}' in JSON at position N (column N))": 1,
        "question: missing (mapped to problem)": 1,
        "problem: contains a NUL character (U+N), which cannot be stored": 1,
      },
      ignored: 0,
      ignoredByReason: {},
      quirks: {},
    });
    expect(await entriesOf(run.id)).toEqual([
      { file: "bad-records.jsonl", line: 3, record: 2, field: "steps", reason: "expected an array of step strings, got number (mapped to steps)", kind: "invalid" },
      { file: "bad-records.jsonl", line: 11, record: 10, field: null, reason: "not valid JSON (Expected property name or '}' in JSON at position 1 (column 2))", kind: "invalid" },
      { file: "bad-records.jsonl", line: 20, record: 19, field: "question", reason: "missing (mapped to problem)", kind: "invalid" },
      { file: "bad-records.jsonl", line: 44, record: 43, field: "problem", reason: "contains a NUL character (U+0000), which cannot be stored", kind: "invalid" },
    ]);
  });

  it("fail (the default): the first invalid record fails the import and nothing is stored, no entry either", async () => {
    const before = await dataRowCounts(database.db);
    const entriesBefore = await database.db.importReportEntry.count();
    const run = await importText("bad-records-fail.jsonl", fileWithBadRecords(), { format: "jsonl", mapping });
    expect(run.status).toBe("failed");
    expect(run.error).toBe('bad-records-fail.jsonl:3, record 2, field "steps": expected an array of step strings, got number (mapped to steps)');
    expect(run.datasetId).toBeNull();
    expect(run.summary).toBeNull();
    expect(await dataRowCounts(database.db)).toEqual(before);
    expect(await database.db.importReportEntry.count()).toBe(entriesBefore);
  });

  it("skip above the bound: fails naming the share, stores nothing, keeps the counts on the failed run", async () => {
    const before = await dataRowCounts(database.db);
    const entriesBefore = await database.db.importReportEntry.count();
    const run = await importText("too-many-bad.jsonl", fileWithBadRecords(), { format: "jsonl", mapping, onInvalid: "skip" });
    expect(run.status).toBe("failed");
    expect(run.error).toBe("too-many-bad.jsonl: 4 of 44 records are invalid (9.1 %), more than the 5 % a skip import accepts: nothing was imported");
    expect(run.datasetId).toBeNull();
    expect(await dataRowCounts(database.db)).toEqual(before);
    expect(await database.db.importReportEntry.count()).toBe(entriesBefore);
    expect(summaryOf(run).report).toMatchObject({ policy: "skip", maxInvalidShare: 0.05, records: 44, readable: 40, invalid: 4 });
    expect(summaryOf(run).written).toBe(0);
  });

  it("skip within the bound exactly at it: 1 of 20 (5 %) is accepted", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => (i === 7 ? JSON.stringify({ uid: "x", question: "q", steps: [] }) : good(i)));
    const run = await importText("one-in-twenty.jsonl", lines.join("\n"), { format: "jsonl", mapping, onInvalid: "skip" });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(summaryOf(run).report).toMatchObject({ records: 20, readable: 19, invalid: 1 });
    expect((await entriesOf(run.id)).map((e) => [e.line, e.field])).toEqual([[8, "steps"]]);
  });

  it("a broken layout fails a skip import too", async () => {
    const before = await dataRowCounts(database.db);
    const run = await importText("pb-truncated.json", readFileSync(path.join(malformed, "pb-truncated.json")), { format: "processbench", onInvalid: "skip", maxInvalidShare: 1 });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("pb-truncated.json:3");
    expect(run.error).toContain("the file ends inside a record");
    expect(await dataRowCounts(database.db)).toEqual(before);
  });

  it("an all-or-nothing import of a file a skip import left records out of is not taken for a duplicate of it", async () => {
    const text = `${fileWithBadRecords()}${good(100)}\n`;
    const skipped = await importText("same.jsonl", text, { format: "jsonl", mapping, onInvalid: "skip", maxInvalidShare: 0.2 });
    expect(skipped.status).toBe("completed");
    const again = await importText("same.jsonl", text, { format: "jsonl", mapping, onInvalid: "skip", maxInvalidShare: 0.2 });
    expect(summaryOf(again).duplicateOfRunId).toBe(skipped.id);
    // 4 of 45 is above a 5 % bound: that import would have failed, so it is no duplicate either.
    const tighter = await importText("same.jsonl", text, { format: "jsonl", mapping, onInvalid: "skip" });
    expect(tighter.status).toBe("failed");
    const strict = await importText("same.jsonl", text, { format: "jsonl", mapping });
    expect(strict.status).toBe("failed");
    expect(strict.error).toContain("same.jsonl:3");
  });

  it("skip in a Parquet file: the bad rows of several row groups are listed by row, the rest stored", async () => {
    const rows = 30;
    const bad = new Set([4, 17, 25]); // 0-based, in the first, second and third row group
    const bytes = writeParquetFile(
      {
        problem: [new Utf8(), Array.from({ length: rows }, (_, i) => `Parquet problem ${i}`)],
        steps: [new List(nullable("element", new Utf8())), Array.from({ length: rows }, (_, i) => (bad.has(i) ? ["ok", null] : [`${i} + 1`, `= ${i + 1}`]))],
      },
      10,
    );
    const run = await importText("rows.parquet", Buffer.from(bytes), { format: "parquet", mapping: parseFieldMapping("problem=problem,steps=steps"), onInvalid: "skip", maxInvalidShare: 0.1 });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(await database.db.solution.count({ where: { datasetId: run.datasetId! } })).toBe(27);
    expect(summaryOf(run).report).toMatchObject({ records: 30, readable: 27, invalid: 3, invalidByReason: { "steps.*: expected a string, got null (mapped to steps)": 3 } });
    expect((await entriesOf(run.id)).map((e) => [e.file, e.line, e.record, e.field, e.reason])).toEqual(
      [...bad].map((i) => ["rows.parquet", i + 1, i, "steps.1", "expected a string, got null (mapped to steps)"]),
    );
  });

  it("an import run stored before the policy existed reads with fail and the 5 % default", async () => {
    const run = await database.db.run.create({
      data: { kind: "import", status: "completed", config: { format: "processbench", fileName: "old.json", options: { format: "processbench", duplicates: "skip" } } },
    });
    const config = readRunConfig({ ...run, kind: "import" });
    expect("options" in config && config.options).toMatchObject({ onInvalid: "fail", maxInvalidShare: 0.05 });
    expect(await entriesOf(run.id)).toEqual([]);
  });

  it("bad option values are refused naming the field", async () => {
    const file = await storeFile(database.db, { fileName: "x.jsonl", purpose: "upload" }, [new TextEncoder().encode(good(1))]);
    await expect(submitImport(database.db, queue, { fileId: file.id, options: { format: "jsonl", mapping, onInvalid: "keep" as "skip" } })).rejects.toThrow(/onInvalid/);
    await expect(submitImport(database.db, queue, { fileId: file.id, options: { format: "jsonl", mapping, onInvalid: "skip", maxInvalidShare: 1.5 } })).rejects.toThrow(/maxInvalidShare/);
    await expect(submitImport(database.db, queue, { fileId: file.id, options: { format: "jsonl", mapping, maxInvalidShare: 0.2 } })).rejects.toThrow(/maxInvalidShare.*skip/s);
  });
});

describe("the report tally: what each outcome does under each policy", () => {
  /** A reader that ignores records with `"empty": true` and accepts a lowercase marker as a quirk. */
  const reader: FormatReader = {
    layout: "json-lines",
    convert(value, at) {
      const record = value as { empty?: boolean; text?: string; lower?: boolean };
      if (record.empty) return { ignored: { reason: "no step was labelled", field: "label.steps" } };
      if (typeof record.text !== "string") throw new InputError("must be a string", { ...at, field: "text" });
      return {
        solution: {
          externalId: `r${at.record}`,
          subset: null,
          generator: "g",
          problem: "p",
          referenceAnswer: null,
          steps: [record.text],
          separator: "\n\n",
          finalAnswer: null,
          finalAnswerCorrect: null,
          firstErrorIndex: null,
          ratings: null,
          hardLabels: null,
          softLabels: null,
          metadata: {},
          contentHash: `hash-${at.record}`,
        },
        quirks: record.lower ? ["lowercase step marker"] : [],
      };
    },
  };

  async function outcomes(values: unknown[]): Promise<ImportOutcome[]> {
    async function* source() {
      for (const [i, value] of values.entries()) yield { line: i + 1, record: i, value };
    }
    const all: ImportOutcome[] = [];
    for await (const outcome of outcomesOfValues(reader, source(), "f.jsonl")) all.push(outcome);
    return all;
  }

  it("fail: ignored records are counted and listed, quirks counted by kind, never invalid", async () => {
    const tally = new ImportReportTally("f.jsonl", "fail", 0.05);
    const taken = (await outcomes([{ text: "a" }, { empty: true }, { text: "b", lower: true }, { text: "c", lower: true }, { empty: true }])).map((o) => tally.take(o));
    expect(taken.map((s) => s?.steps[0] ?? null)).toEqual(["a", null, "b", "c", null]);
    expect(tally.counts).toMatchObject({ records: 5, readable: 3, invalid: 0, ignored: 2, ignoredByReason: { "no step was labelled": 2 }, quirks: { "lowercase step marker": 2 } });
    expect(tally.takeEntries()).toEqual([
      { kind: "ignored", file: "f.jsonl", line: 2, record: 1, field: "label.steps", reason: "no step was labelled", reasonKey: "no step was labelled" },
      { kind: "ignored", file: "f.jsonl", line: 5, record: 4, field: "label.steps", reason: "no step was labelled", reasonKey: "no step was labelled" },
    ]);
    expect(tally.takeEntries()).toEqual([]);
    expect(tally.shareError()).toBeNull();
  });

  it("fail throws the first invalid record; skip lists it; ignored records count in the share's denominator", async () => {
    const values = [{ text: "a" }, { text: 1 }, { empty: true }, { empty: true }];
    const failing = new ImportReportTally("f.jsonl", "fail", 0.05);
    const [first, second] = await outcomes(values);
    failing.take(first!);
    expect(() => failing.take(second!)).toThrow('f.jsonl:2, record 1, field "text": must be a string');

    const skipping = new ImportReportTally("f.jsonl", "skip", 0.25);
    for (const o of await outcomes(values)) skipping.take(o);
    expect(skipping.counts).toMatchObject({ records: 4, readable: 1, invalid: 1, ignored: 2, invalidByReason: { "text: must be a string": 1 } });
    expect(skipping.shareError()).toBeNull();
    const strict = new ImportReportTally("f.jsonl", "skip", 0.2);
    for (const o of await outcomes(values)) strict.take(o);
    expect(strict.shareError()?.message).toBe("f.jsonl: 1 of 4 records are invalid (25 %), more than the 20 % a skip import accepts: nothing was imported");
  });

  it("a structural failure throws under skip", () => {
    const tally = new ImportReportTally("f.jsonl", "skip", 1);
    const error = new InputError("the file ends inside a record", { file: "f.jsonl", line: 3 });
    expect(() => tally.take({ kind: "invalid", line: 3, error, structural: true })).toThrow(error);
  });
});
