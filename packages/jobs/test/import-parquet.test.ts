import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildStepwiserJudgePrompt, parseFieldMapping, PARAGRAPH_SEPARATOR, type LabelRule, type SourceValue } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { Bool, Int32, Int64, Int8, List, Struct, TimestampMillisecond, Utf8 } from "apache-arrow";
import { parquetMetadata, parquetReadObjects, type AsyncBuffer } from "hyparquet";
import { Compression } from "parquet-wasm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  connectJobQueue,
  exportTrainingSet,
  parquetRows,
  plainJsonOf,
  readStoredFileRange,
  runImport,
  STORED_FILE_PART_BYTES,
  storedFileBuffer,
  storeFile,
  submitImport,
  type ImportOptionsInput,
  type JobQueue,
  OTHER_RUNS,
} from "../src";
import { dataRowCounts } from "./helpers";
import { nullable, writeParquetFile, type ParquetColumn } from "./parquet-files";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core/test/fixtures/imports");
const ABS_Q: LabelRule = { rule: "abs-q", evidence: "own-prefix" };

const utf8List = new List(nullable("element", new Utf8()));
const boolList = new List(nullable("element", new Bool()));
const int8List = new List(nullable("element", new Int8()));
const questionType = new Struct([nullable("problem", new Utf8()), nullable("answer", new Utf8())]);
const completionsType = new List(nullable("element", new Struct([nullable("text", new Utf8()), nullable("rating", new Int8())])));

const inMemory = (bytes: Uint8Array): AsyncBuffer => ({
  byteLength: bytes.byteLength,
  slice: async (start, end = bytes.byteLength) => bytes.slice(start, end).buffer as ArrayBuffer,
});
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** A small deterministic word generator, so row groups hold text that does not compress to nothing. */
function wordsFrom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  return (count: number) => Array.from({ length: count }, () => (next() % 1_000_000).toString(36)).join(" ");
}

describe("Parquet import (real Postgres): nested columns, row groups, errors", () => {
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

  async function importParquet(fileName: string, bytes: Uint8Array, options: ImportOptionsInput) {
    const file = await storeFile(database.db, { fileName, purpose: "upload" }, [bytes]);
    const run = await submitImport(database.db, queue, { fileId: file.id, options });
    await runImport(database.db, run.id, { batchSize: 2 });
    return database.db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  const solutionsOf = (datasetId: string) =>
    database.db.solution.findMany({
      where: { datasetId },
      orderBy: { externalId: "asc" },
      include: {
        problem: true,
        segmentations: { include: { chunks: { orderBy: { index: "asc" }, include: { labels: true, humanLabels: true } } } },
      },
    });

  // Five solutions, every field a nested or typed column; written in two row groups.
  const SOLUTIONS = [
    { uid: 101n, problem: "What is 2+2?", answer: "4", steps: ["2+2", "= 4"], labels: [true, true], hard: [1, 1], ratings: [1, 0], correct: true, firstError: -1, model: "m-a", source: "gsm8k" },
    { uid: 102n, problem: "What is 3+5?", answer: "8", steps: ["3+5", "= 9", "so 9"], labels: [true, false, false], hard: [1, 0, 0], ratings: [1, -1, -1], correct: false, firstError: 1, model: "m-b", source: "gsm8k" },
    { uid: 103n, problem: "Solve $x^2=4$.", answer: null, steps: ["x = ±2"], labels: [null], hard: [null], ratings: [null], correct: null, firstError: null, model: null, source: "math" },
    { uid: 9_007_199_254_740_993n, problem: "What is 7*6?", answer: "42", steps: ["7*6", "= 42"], labels: [true, true], hard: [1, 1], ratings: [0, 1], correct: true, firstError: -1, model: "m-a", source: "math" },
    { uid: 105n, problem: "What is 1-1?", answer: "0", steps: ["1-1", "= 0"], labels: [false, true], hard: [0, 1], ratings: [-1, 1], correct: true, firstError: 0, model: "m-c", source: null },
  ];
  const nestedFile = () => {
    const column = (type: ParquetColumn[0], pick: (s: (typeof SOLUTIONS)[number]) => unknown): ParquetColumn => [type, SOLUTIONS.map(pick)];
    return writeParquetFile(
      {
        uid: column(new Int64(), (s) => s.uid),
        question: column(questionType, (s) => ({ problem: s.problem, answer: s.answer })),
        steps: column(utf8List, (s) => s.steps),
        labels: column(boolList, (s) => s.labels),
        hard: column(int8List, (s) => s.hard),
        completions: column(completionsType, (s) => s.steps.map((text, i) => ({ text, rating: s.ratings[i] }))),
        correct: column(new Bool(), (s) => s.correct),
        first_error: column(new Int32(), (s) => s.firstError),
        model: column(new Utf8(), (s) => s.model),
        source: column(new Utf8(), (s) => s.source),
        created: column(new TimestampMillisecond(), () => Date.UTC(2026, 0, 2, 3, 4, 5)),
      },
      3,
    );
  };

  it("nested columns: struct fields, list<string> steps, list<bool> and list<int> labels, a list<struct{text, rating}>; every field imported", async () => {
    const bytes = nestedFile();
    expect(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).row_groups).toHaveLength(2);

    // Struct fields and list columns, with hard labels from list<bool>.
    const mapping = parseFieldMapping(
      "id=uid,problem=question.problem,answer=question.answer,steps=steps,labels=labels,correct=correct,firstError=first_error,generator=model,subset=source",
    );
    const run = await importParquet("nested.parquet", bytes, { format: "parquet", mapping, datasetName: "nested", generator: "fallback" });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.summary).toMatchObject({ format: "parquet", records: 5, written: 5, chunks: 10 });
    const solutions = await solutionsOf(run.datasetId!);
    expect(solutions.map((t) => t.externalId).sort()).toEqual(SOLUTIONS.map((s) => (s.uid <= BigInt(Number.MAX_SAFE_INTEGER) ? String(Number(s.uid)) : s.uid.toString())).sort());
    // The INT64 beyond 2^53 kept exactly, as its decimal text.
    expect(solutions.map((t) => t.externalId)).toContain("9007199254740993");
    for (const t of solutions) {
      const s = SOLUTIONS.find((x) => x.uid.toString() === t.externalId)!;
      expect(t.problem.text).toBe(s.problem);
      expect(t.problem.referenceAnswer).toBe(s.answer);
      expect(t.finalAnswerCorrect).toBe(s.correct);
      expect(t.sourceFirstErrorIndex).toBe(s.firstError);
      expect(t.generator).toBe(s.model ?? "fallback");
      expect(t.subset).toBe(s.source);
      expect(t.text).toBe(s.steps.join(PARAGRAPH_SEPARATOR));
      const [segmentation] = t.segmentations;
      expect(segmentation!.method).toBe("source-steps");
      expect(segmentation!.chunks.map((c) => c.text)).toEqual(s.steps);
      expect(segmentation!.chunks.map((c) => c.labels[0]?.label ?? null)).toEqual(s.labels.map((l) => (l === null ? null : l ? "Positive" : "Negative")));
      for (const c of segmentation!.chunks) expect(c.labels.every((l) => l.runId === run.id && l.rule === "abs_q")).toBe(true);
    }

    // The same file read through the list<struct{text, rating}> column: texts as steps, ratings as human labels.
    const byCompletions = await importParquet("nested.parquet", bytes, {
      format: "parquet",
      mapping: parseFieldMapping("id=uid,problem=question.problem,steps=completions.*.text,labels=completions.*.rating,labelKind=rating"),
      datasetName: "nested ratings",
    });
    expect(byCompletions.status, byCompletions.error ?? "").toBe("completed");
    for (const t of await solutionsOf(byCompletions.datasetId!)) {
      const s = SOLUTIONS.find((x) => x.uid.toString() === t.externalId)!;
      const chunks = t.segmentations[0]!.chunks;
      expect(chunks.map((c) => c.text)).toEqual(s.steps);
      expect(chunks.map((c) => c.humanLabels[0]?.rating ?? null)).toEqual(s.ratings);
      for (const label of chunks.flatMap((c) => c.humanLabels)) expect(label.source).toBe("imported");
    }

    // list<int8> 1/0 labels read as hard labels when the mapping says so.
    const byInts = await importParquet("nested.parquet", bytes, {
      format: "parquet",
      mapping: parseFieldMapping("id=uid,problem=question.problem,steps=steps,labels=hard,labelKind=hard"),
      datasetName: "nested ints",
    });
    expect(byInts.status, byInts.error ?? "").toBe("completed");
    for (const t of await solutionsOf(byInts.datasetId!)) {
      const s = SOLUTIONS.find((x) => x.uid.toString() === t.externalId)!;
      expect(t.segmentations[0]!.chunks.map((c) => c.labels[0]?.label ?? null)).toEqual(s.hard.map((l) => (l === null ? null : l === 1 ? "Positive" : "Negative")));
    }
  });

  it("values reach the mapping as plain JSON: INT64 as numbers (or decimal text past 2^53), timestamps as ISO text, structs and lists as objects and arrays", async () => {
    const file = await storeFile(database.db, { fileName: "nested.parquet", purpose: "upload" }, [nestedFile()]);
    const rows: SourceValue[] = [];
    for await (const row of parquetRows(storedFileBuffer(database.db, file.id, Number(file.sizeBytes)), { file: "nested.parquet" })) rows.push(row);
    expect(rows.map((r) => [r.line, r.record])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 4],
    ]);
    expect(rows[1]!.value).toEqual({
      uid: 102,
      question: { problem: "What is 3+5?", answer: "8" },
      steps: ["3+5", "= 9", "so 9"],
      labels: [true, false, false],
      hard: [1, 0, 0],
      completions: [
        { text: "3+5", rating: 1 },
        { text: "= 9", rating: -1 },
        { text: "so 9", rating: -1 },
      ],
      correct: false,
      first_error: 1,
      model: "m-b",
      source: "gsm8k",
      created: "2026-01-02T03:04:05.000Z",
    });
    expect((rows[3]!.value as { uid: unknown }).uid).toBe("9007199254740993");
    expect((rows[2]!.value as { question: unknown }).question).toEqual({ problem: "Solve $x^2=4$.", answer: null });

    expect(plainJsonOf(-(2n ** 63n))).toBe("-9223372036854775808");
    expect(plainJsonOf(new Date(Number.NaN))).toBeNull();
    expect(plainJsonOf(new Uint8Array([0, 255]))).toEqual([0, 255]);
    expect(plainJsonOf(undefined)).toBeNull();
  });

  it("three row groups: only one row group is fetched per read, and a bad row in the middle group is named by its row", async () => {
    const words = wordsFrom(7);
    const rowsPerGroup = 200;
    const rowCount = 3 * rowsPerGroup;
    const bad = rowsPerGroup + 37; // 0-based, in the second group
    const bytes = writeParquetFile(
      {
        problem: [new Utf8(), Array.from({ length: rowCount }, (_, i) => `Problem ${i}: ${words(20)}`)],
        steps: [utf8List, Array.from({ length: rowCount }, (_, i) => (i === bad ? [words(30), null] : [words(40), words(40)]))],
      },
      rowsPerGroup,
    );
    const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    expect(metadata.row_groups).toHaveLength(3);
    const groupSpans = metadata.row_groups.map((group) => {
      const starts = group.columns.map((c) => Number(c.meta_data!.dictionary_page_offset ?? c.meta_data!.data_page_offset));
      const ends = group.columns.map((c) => Number((c.meta_data!.dictionary_page_offset ?? c.meta_data!.data_page_offset) + c.meta_data!.total_compressed_size));
      return { start: Math.min(...starts), end: Math.max(...ends) };
    });
    const largestGroup = Math.max(...groupSpans.map((g) => g.end - g.start));
    const footer = new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 8, 4).getUint32(0, true) + 8;
    expect(footer).toBeLessThan(largestGroup);

    const file = await storeFile(database.db, { fileName: "groups.parquet", purpose: "upload" }, [bytes]);
    const stored = storedFileBuffer(database.db, file.id, Number(file.sizeBytes));
    const reads: Array<{ start: number; end: number }> = [];
    const counting: AsyncBuffer = {
      byteLength: stored.byteLength,
      slice(start, end = stored.byteLength) {
        reads.push({ start, end });
        return stored.slice(start, end);
      },
    };
    const groupsRead: number[] = [];
    const values = parquetRows(counting, { file: "groups.parquet", onRowGroup: (n) => groupsRead.push(n) });
    const first = await values.next();
    expect(first.value).toMatchObject({ line: 1, record: 0 });
    // Streaming: the first row is out before any byte of the second and third row groups is fetched.
    expect(reads.filter((r) => r.end > groupSpans[1]!.start && r.start < groupSpans[2]!.end)).toEqual([]);
    let count = 1;
    for await (const _ of values) count += 1;
    expect(count).toBe(rowCount);
    expect(groupsRead).toHaveLength(3);
    const size = bytes.byteLength;
    for (const read of reads) {
      expect(read.end - read.start).toBeLessThanOrEqual(largestGroup + footer);
      // Every read is the magic bytes, the footer (exactly) or row data inside one row group.
      const magic = read.start === 0 && read.end === 4;
      const tail = read.end === size && read.start >= size - footer;
      if (!magic && !tail) expect(groupSpans.some((g) => read.start >= g.start && read.end <= g.end), JSON.stringify(read)).toBe(true);
    }

    // Through the pipeline: the import fails naming the bad row (1-based), its record and field, and writes nothing.
    const before = await dataRowCounts(database.db);
    const run = await importParquet("groups.parquet", bytes, { format: "parquet", mapping: parseFieldMapping("problem=problem,steps=steps") });
    expect(run.status).toBe("failed");
    expect(run.error).toBe(`groups.parquet:${bad + 1}, record ${bad}, field "steps.1": expected a string, got null (mapped to steps)`);
    expect(await dataRowCounts(database.db)).toEqual(before);
  });

  it("a stored file's byte ranges are read from the parts that cover them, across part boundaries", async () => {
    const content = randomBytes(2 * STORED_FILE_PART_BYTES + 1000);
    const file = await storeFile(database.db, { fileName: "parts.bin", purpose: "upload" }, [content]);
    expect(await database.db.storedFilePart.count({ where: { fileId: file.id } })).toBe(3);
    const P = STORED_FILE_PART_BYTES;
    for (const [start, end] of [
      [0, 10],
      [P - 5, P + 5],
      [P - 1, 2 * P + 1],
      [2 * P, 2 * P + 1000],
      [0, content.length],
      [17, 17],
    ] as const) {
      expect(Buffer.from(await readStoredFileRange(database.db, file.id, start, end)).equals(content.subarray(start, end)), `[${start}, ${end})`).toBe(true);
    }
    await expect(readStoredFileRange(database.db, file.id, 2 * P, 2 * P + 1001)).rejects.toThrow(/holds 1000 of the 1001 bytes/);
  });

  it("a file that is not Parquet, a cut-off one, an unknown column and an empty one fail with a clear error naming the file", async () => {
    const mapping = parseFieldMapping("problem=problem,steps=steps");
    const before = await dataRowCounts(database.db);

    const jsonl = new TextEncoder().encode('{"problem":"p","steps":["a"]}\n{"problem":"q","steps":["b"]}\n');
    const notParquet = await importParquet("data.jsonl", jsonl, { format: "parquet", mapping });
    expect(notParquet.status).toBe("failed");
    expect(notParquet.error).toBe('data.jsonl: not a Parquet file: it does not start with the bytes "PAR1"');

    const whole = writeParquetFile({ problem: [new Utf8(), ["p", "q"]], steps: [utf8List, [["a"], ["b"]]] }, 10);
    const cut = await importParquet("cut.parquet", whole.subarray(0, whole.length - 100), { format: "parquet", mapping });
    expect(cut.status).toBe("failed");
    expect(cut.error).toBe('cut.parquet: not a Parquet file: it does not end with the bytes "PAR1" (a cut-off or unfinished file?)');

    const tiny = await importParquet("tiny.parquet", new TextEncoder().encode("PAR1"), { format: "parquet", mapping });
    expect(tiny.error).toBe('tiny.parquet: not a Parquet file: it is only 4 bytes long (a Parquet file starts and ends with "PAR1")');

    const unknown = await importParquet("whole.parquet", whole, { format: "parquet", mapping: parseFieldMapping("problem=question.problem,steps=steps") });
    expect(unknown.status).toBe("failed");
    expect(unknown.error).toBe('whole.parquet, field "--map": column "question" (mapped to problem) is not in the file; its columns are "problem", "steps"');

    const twice = writeParquetFile({ uid: [new Int64(), [7n, 8n, 7n]], problem: [new Utf8(), ["p", "q", "r"]], steps: [utf8List, [["a"], ["b"], ["c"]]] }, 2);
    const duplicate = await importParquet("twice.parquet", twice, { format: "parquet", mapping: parseFieldMapping("id=uid,problem=problem,steps=steps") });
    expect(duplicate.error).toBe('twice.parquet:3, record 2, field "uid": duplicate id "7": first used by the record on row 1');

    const empty = writeParquetFile({ problem: [new Utf8(), []], steps: [utf8List, []] }, 10);
    const none = await importParquet("empty.parquet", empty, { format: "parquet", mapping });
    expect(none.status).toBe("failed");
    expect(none.error).toBe("empty.parquet:1: the file holds no records");

    expect(await dataRowCounts(database.db)).toEqual(before);
  });

  it("a codec the reader lacks (LZO) is refused naming it and the codecs it reads, before any row is read", async () => {
    // fixtures/parquet-codecs/README.md: an uncompressed `problem` column whose column chunk declares LZO.
    const bytes = new Uint8Array(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "fixtures/parquet-codecs/lzo-declared.parquet")));
    const run = await importParquet("lzo.parquet", bytes, { format: "parquet", mapping: parseFieldMapping("problem=problem,text=problem") });
    expect(run.status).toBe("failed");
    expect(run.error).toBe(
      'lzo.parquet: the Parquet file is compressed with LZO, which the import does not read; write it with UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW (pyarrow: compression="zstd" or "snappy")',
    );
  });

  it("a decompression bomb is refused by the declared sizes, located, and nothing is stored", async () => {
    const mapping = parseFieldMapping("problem=problem,steps=steps");
    const before = await dataRowCounts(database.db);
    // One 20 MiB problem text of one repeated letter: about 20 KB gzipped, one page declaring 20 MiB (the cap is 16 MiB).
    const bomb = writeParquetFile({ problem: [new Utf8(), ["a".repeat(20 * 1024 * 1024)]], steps: [utf8List, [["s"]]] }, 1, Compression.GZIP);
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const run = await importParquet("bomb.parquet", bomb, { format: "parquet", mapping });
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^bomb\.parquet:1: row group 1 of 1 \(rows 1–1\) (declares [\d,]+ bytes uncompressed, more than the 512 MiB|was refused: a page declares [\d,]+ bytes uncompressed, more than the 16 MiB a page may hold)/);
    expect(await dataRowCounts(database.db)).toEqual(before);

    // The same caps, smaller, for every codec the reader has: the page's declared size and the row group's together.
    const text = "b".repeat(256 * 1024);
    for (const compression of [Compression.SNAPPY, Compression.GZIP, Compression.BROTLI, Compression.ZSTD, Compression.LZ4, Compression.LZ4_RAW]) {
      const bytes = writeParquetFile({ problem: [new Utf8(), [text, text]], steps: [utf8List, [["s"], ["t"]]] }, 2, compression);
      const read = (limits: { maxPageBytes: number; maxRowGroupBytes: number }) => collect(parquetRows(inMemory(bytes), { file: "small.parquet", limits }));
      await expect(read({ maxPageBytes: 64 * 1024, maxRowGroupBytes: 64 * 1024 * 1024 })).rejects.toThrow(/^small\.parquet:1: row group 1 of 1 \(rows 1–2\) was refused: a page declares [\d,]+ bytes uncompressed, more than the 65,536 bytes a page may hold$/);
      await expect(read({ maxPageBytes: 4 * 1024 * 1024, maxRowGroupBytes: 200 * 1024 })).rejects.toThrow(/^small\.parquet:1: row group 1 of 1 \(rows 1–2\) declares [\d,]+ bytes uncompressed, more than the 204,800 bytes the import reads at once/);
      expect(await read({ maxPageBytes: 4 * 1024 * 1024, maxRowGroupBytes: 64 * 1024 * 1024 })).toHaveLength(2);
    }
  });

  it("GZIP, Brotli and uncompressed files read like Snappy ones", async () => {
    const mapping = parseFieldMapping("problem=problem,steps=steps");
    for (const [name, compression] of [
      ["gzip.parquet", Compression.GZIP],
      ["plain.parquet", Compression.UNCOMPRESSED],
      ["brotli.parquet", Compression.BROTLI],
    ] as const) {
      const bytes = writeParquetFile({ problem: [new Utf8(), [`${name}: p`, `${name}: q`]], steps: [utf8List, [["a", "b"], ["c"]]] }, 1, compression);
      const run = await importParquet(name, bytes, { format: "parquet", mapping, datasetName: name });
      expect(run.status, run.error ?? "").toBe("completed");
      const solutions = await solutionsOf(run.datasetId!);
      expect(solutions.map((t) => t.segmentations[0]!.chunks.map((c) => c.text)).sort()).toEqual([["a", "b"], ["c"]]);
      // Without a mapped id, the external id comes from the content hash, named after the format.
      for (const t of solutions) expect(t.externalId).toMatch(/^parquet-[0-9a-f]{16}$/);
    }
  });

  it("round trip: a verl training set exported from an imported dataset imports back with the same problems, steps and labels, field by field", async () => {
    const { db } = database;
    const source = await storeFile(db, { fileName: "math-shepherd.jsonl", purpose: "upload" }, [readFileSync(path.join(fixtures, "math-shepherd.jsonl"))]);
    const sourceRun = await submitImport(db, queue, { fileId: source.id, options: { format: "math-shepherd", datasetName: "round trip source" } });
    await runImport(db, sourceRun.id);
    const { files } = await exportTrainingSet(db, { annotateRunId: sourceRun.id, labelRule: ABS_Q, format: "verl", heldOutFraction: 0, seed: 3 }, OTHER_RUNS);
    const train = files.find((f) => f.fileName === "train.parquet")!;
    const exported = (await parquetReadObjects({ file: train.content.buffer.slice(train.content.byteOffset, train.content.byteOffset + train.content.byteLength) as ArrayBuffer })) as Array<{
      data_source: string;
      prompt: Array<{ role: string; content: string }>;
      reward_model: { ground_truth: string };
      extra_info: { index: bigint; chunk_id: string; split: string };
    }>;
    expect(exported.length).toBeGreaterThan(1);

    // A verl row is a judge task: the prompt is its problem, the ground-truth verdict its reference answer and its one-step solution.
    const mapping = parseFieldMapping(
      "id=extra_info.index,problem=prompt.0.content,answer=reward_model.ground_truth,text=reward_model.ground_truth,split=lines,subset=extra_info.split,generator=data_source",
    );
    const run = await importParquet("train.parquet", train.content, { format: "parquet", mapping, datasetName: "verl round trip" });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.summary).toMatchObject({ records: exported.length, written: exported.length });
    const imported = await solutionsOf(run.datasetId!);
    expect(imported).toHaveLength(exported.length);
    for (const row of exported) {
      const t = imported.find((x) => x.externalId === String(row.extra_info.index))!;
      expect(t, `row ${row.extra_info.index}`).toBeDefined();
      expect(t.problem.text).toBe(row.prompt[0]!.content);
      expect(t.problem.referenceAnswer).toBe(row.reward_model.ground_truth);
      expect(t.segmentations[0]!.chunks.map((c) => c.text)).toEqual([row.reward_model.ground_truth]);
      expect(t.subset).toBe(row.extra_info.split);
      expect(t.generator).toBe(row.data_source);

      // And what was exported is what the source dataset holds: the judge prompt of that chunk, and its stored label.
      const chunk = await db.chunk.findUniqueOrThrow({
        where: { id: row.extra_info.chunk_id },
        include: {
          labels: { where: { runId: sourceRun.id } },
          segmentation: { include: { chunks: { orderBy: { index: "asc" } }, solution: { include: { problem: true } } } },
        },
      });
      const prompt = buildStepwiserJudgePrompt({
        problem: chunk.segmentation.solution.problem.text,
        previousChunks: chunk.segmentation.chunks.filter((c) => c.index < chunk.index),
        chunk,
      }).text;
      expect(t.problem.text).toBe(prompt);
      expect(t.problem.referenceAnswer).toBe(chunk.labels[0]!.label);
    }
  });
});
