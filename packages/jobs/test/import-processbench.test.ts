import { readFile } from "node:fs/promises";
import { InputError } from "@stepwiser/core";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, runImport, startWorker, submitProcessBenchImport, type JobQueue } from "../src";
import { rowCounts, waitForRun } from "./helpers";

const [gsm8kFile] = DEMO_PROCESSBENCH_FILES as [string, string];

describe("ProcessBench import job (real Postgres, real queue)", () => {
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

  it("stores every record as a solution with one chunk per paragraph at exact offsets", async () => {
    const content = await readFile(gsm8kFile);
    const records = JSON.parse(content.toString("utf8")) as Array<{ id: string; steps: string[]; label: number; problem: string }>;
    const worker = await startWorker({ databaseUrl: database.url, db: database.db, log: () => {} });
    try {
      const run = await submitProcessBenchImport(database.db, queue, { fileName: "gsm8k.json", content });
      const finished = await waitForRun(database.db, run.id);
      expect(finished.status).toBe("completed");
      expect(finished.unitsDone).toBe(records.length);
    } finally {
      await worker.stop();
    }
    const db = database.db;
    const dataset = await db.dataset.findFirstOrThrow({ where: { status: "ready" } });
    expect(await db.solution.count({ where: { datasetId: dataset.id } })).toBe(400);
    expect(await db.problem.count({ where: { datasetId: dataset.id } })).toBe(new Set(records.map((r) => r.problem)).size);
    expect(await db.chunk.count()).toBe(records.reduce((n, r) => n + r.steps.length, 0));
    expect(await db.solution.count({ where: { sourceFirstErrorIndex: { gte: 0 } } })).toBe(
      records.filter((r) => r.label >= 0).length,
    );

    const sample = records[7]!;
    const stored = await db.solution.findFirstOrThrow({
      where: { externalId: sample.id },
      include: { segmentations: { include: { chunks: { orderBy: { index: "asc" } } } } },
    });
    expect(stored.subset).toBe("gsm8k");
    expect(stored.sourceFirstErrorIndex).toBe(sample.label);
    const chunks = stored.segmentations[0]!.chunks;
    expect(chunks.map((c) => c.text)).toEqual(sample.steps);
    for (const c of chunks) expect(stored.text.slice(c.startOffset, c.endOffset)).toBe(c.text);
  });

  it("rejects a file with one malformed record and leaves the database unchanged", async () => {
    const records = JSON.parse((await readFile(gsm8kFile)).toString("utf8")) as Array<Record<string, unknown>>;
    records[123] = { ...records[123], label: 42 };
    const before = await rowCounts(database.db);
    const attempt = submitProcessBenchImport(database.db, queue, {
      fileName: "gsm8k-broken.json",
      content: Buffer.from(JSON.stringify(records, null, 2)),
    });
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow(/gsm8k-broken\.json:\d+, record 123, field "label"/);
    expect(await rowCounts(database.db)).toEqual(before);
  });

  it("re-running a finished import changes nothing", async () => {
    const run = await database.db.run.findFirstOrThrow({ where: { kind: "import", status: "completed" } });
    const before = await rowCounts(database.db);
    await runImport(database.db, run.id);
    expect(await rowCounts(database.db)).toEqual(before);
  });
});
