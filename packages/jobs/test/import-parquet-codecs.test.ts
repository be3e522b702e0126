import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseFieldMapping, PARAGRAPH_SEPARATOR } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { parquetMetadata } from "hyparquet";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, runImport, storeFile, submitImport, type JobQueue } from "../src";
import { FIXTURE_FILES, FIXTURE_SOLUTIONS } from "./fixtures/parquet-codecs/write-fixtures";

/**
 * Parquet files compressed with every codec the writers people use produce (polars writes ZSTD by default, pyarrow
 * Snappy; LZ4, LZ4_RAW, GZIP and Brotli on request) import through an upload: stored, submitted, run by the import
 * job, read back as solutions. The files are committed fixtures written by another Parquet implementation
 * (fixtures/parquet-codecs/README.md), and each one's footer is read first to prove the codec is really the one
 * named: every column chunk declares it.
 */
const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "parquet-codecs");
const fixture = (file: string) => new Uint8Array(readFileSync(path.join(folder, file)));
const arrayBufferOf = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
const MAPPING = "id=id,problem=problem,answer=answer,steps=steps,labels=labels";

describe("Parquet import (real Postgres): ZSTD, LZ4, LZ4_RAW, Snappy, GZIP and Brotli files", () => {
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

  async function importUpload(fileName: string, bytes: Uint8Array) {
    const file = await storeFile(database.db, { fileName, purpose: "upload" }, [bytes]);
    const run = await submitImport(database.db, queue, { fileId: file.id, options: { format: "parquet", mapping: parseFieldMapping(MAPPING), datasetName: fileName } });
    await runImport(database.db, run.id);
    return database.db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  for (const { file, codec } of FIXTURE_FILES) {
    it(`${file}: every column chunk is ${codec}, and its three solutions import with their problems, answers, steps and labels`, async () => {
      const bytes = fixture(file);
      const metadata = parquetMetadata(arrayBufferOf(bytes));
      const chunks = metadata.row_groups.flatMap((group) => group.columns.map((column) => [column.meta_data!.path_in_schema.join("."), column.meta_data!.codec]));
      expect(chunks.map(([column]) => column)).toEqual(["id", "problem", "answer", "steps.list.element", "labels.list.element"]);
      expect(new Set(chunks.map(([, chunkCodec]) => chunkCodec))).toEqual(new Set([codec]));
      expect(metadata.created_by).toMatch(/^parquet-rs /);

      const run = await importUpload(file, bytes);
      expect(run.status, run.error ?? "").toBe("completed");
      expect(run.summary).toMatchObject({ format: "parquet", records: 3, written: 3 });
      const solutions = await database.db.solution.findMany({
        where: { datasetId: run.datasetId! },
        orderBy: { externalId: "asc" },
        include: { problem: true, segmentations: { include: { chunks: { orderBy: { index: "asc" }, include: { labels: true } } } } },
      });
      expect(solutions.map((s) => s.externalId)).toEqual(FIXTURE_SOLUTIONS.map((s) => String(s.id)));
      for (const [i, solution] of solutions.entries()) {
        const expected = FIXTURE_SOLUTIONS[i]!;
        expect(solution.problem.text).toBe(expected.problem);
        expect(solution.problem.referenceAnswer).toBe(expected.answer);
        expect(solution.text).toBe(expected.steps.join(PARAGRAPH_SEPARATOR));
        const chunkRows = solution.segmentations[0]!.chunks;
        expect(chunkRows.map((c) => c.text)).toEqual(expected.steps);
        expect(chunkRows.map((c) => c.labels[0]?.label)).toEqual(expected.labels.map((l) => (l ? "Positive" : "Negative")));
      }
    });
  }
});
