import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { bytesOf, connectJobQueue, runImport, storeFile, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "../src";
import type { SessionUser } from "../src/trpc";
import { createUser } from "./annotation-fixtures";

const MAPPING = { problem: "question", steps: "steps" } as const;

/** 24 records; lines 2, 7, 13 and 21 are unreadable in different ways (4 of 24 = 16.7 %). */
function fileWithBadRecords(): string {
  return Array.from({ length: 24 }, (_, i) => {
    const line = i + 1;
    if (line === 2) return JSON.stringify({ question: "q", steps: 7 });
    if (line === 7) return "[1, 2";
    if (line === 13) return JSON.stringify({ steps: ["a"] });
    if (line === 21) return JSON.stringify({ question: "q", steps: [3] });
    return JSON.stringify({ question: `What is ${line} + 1?`, steps: [`${line} + 1`, `= ${line + 1}`] });
  }).join("\n");
}

describe("import.start with the invalid-record policy and import.report (real Postgres, jobs run here)", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let researcher: SessionUser;
  let viewer: SessionUser;
  let annotator: SessionUser;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
    researcher = await createUser(database.db, "researcher", "Rita");
    viewer = await createUser(database.db, "viewer", "Vera");
    annotator = await createUser(database.db, "annotator", "Anna");
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  const callerFor = (user: SessionUser) => appRouter.createCaller({ db: database.db, getQueue: async () => queue, user });
  const failure = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  async function importSkipping(fileName: string, maxInvalidShare: number) {
    const file = await storeFile(database.db, { fileName, purpose: "upload", createdById: researcher.id }, bytesOf(fileWithBadRecords()));
    const { runId } = await callerFor(researcher).import.start({ fileId: file.id, options: { format: "jsonl", mapping: MAPPING, onInvalid: "skip", maxInvalidShare } });
    await runImport(database.db, runId);
    return runId;
  }

  it("a skip import's report: counts, counts by reason, entries paged in file order, filtered by kind", async () => {
    const runId = await importSkipping("released.jsonl", 0.2);
    const report = await callerFor(viewer).import.report({ runId, pageSize: 3 });
    expect(report.status).toBe("completed");
    expect(report.imported).toBe(20);
    expect(report.counts).toMatchObject({ policy: "skip", maxInvalidShare: 0.2, records: 24, readable: 20, invalid: 4, ignored: 0 });
    expect(report.counts!.invalidByReason).toEqual({
      "steps: expected an array of step strings, got number (mapped to steps)": 1,
      "not valid JSON (Expected ',' or ']' after array element in JSON at position N (column N))": 1,
      "question: missing (mapped to problem)": 1,
      "steps.*: expected a string, got number (mapped to steps)": 1,
    });
    expect(report.total).toBe(4);
    expect(report.entries.map((e) => [e.line, e.record, e.field, e.kind])).toEqual([
      [2, 1, "steps", "invalid"],
      [7, 6, null, "invalid"],
      [13, 12, "question", "invalid"],
    ]);
    const second = await callerFor(viewer).import.report({ runId, pageSize: 3, page: 2 });
    expect(second.entries.map((e) => [e.line, e.field, e.reason])).toEqual([[21, "steps.0", "expected a string, got number (mapped to steps)"]]);
    expect((await callerFor(viewer).import.report({ runId, kind: "ignored" })).total).toBe(0);
    expect((await callerFor(viewer).import.report({ runId, kind: "invalid" })).total).toBe(4);
  });

  it("a skip import refused for its share keeps its counts and error, and lists nothing", async () => {
    const runId = await importSkipping("too-bad.jsonl", 0.1);
    const report = await callerFor(researcher).import.report({ runId });
    expect(report.status).toBe("failed");
    expect(report.error).toBe("too-bad.jsonl: 4 of 24 records are invalid (16.7 %), more than the 10 % a skip import accepts: nothing was imported");
    expect(report.imported).toBeNull();
    expect(report.counts).toMatchObject({ records: 24, invalid: 4, readable: 20 });
    expect(report.total).toBe(0);
  });

  it("an import stored before reports existed reads with no counts", async () => {
    const old = await database.db.run.create({
      data: {
        kind: "import",
        status: "completed",
        config: { format: "processbench", fileName: "old.json", options: { format: "processbench", duplicates: "skip" } },
        summary: { format: "processbench", records: 3, written: 3, skipped: 0, replaced: 0, chunks: 9, humanLabels: 0, chunkLabels: 0 },
      },
    });
    const report = await callerFor(viewer).import.report({ runId: old.id });
    expect(report).toMatchObject({ counts: null, imported: 3, total: 0, entries: [] });
    const listed = await callerFor(viewer).import.list({ limit: 50 });
    expect(listed.find((r) => r.id === old.id)?.summary).toMatchObject({ written: 3 });
  });

  it("refuses annotators, unknown runs and runs of another kind", async () => {
    const runId = await importSkipping("again.jsonl", 0.5);
    expect(await failure(callerFor(annotator).import.report({ runId }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(callerFor(viewer).import.report({ runId: "no-such-run" }))).toMatchObject({ code: "NOT_FOUND", message: "no import run no-such-run" });
    const other = await database.db.run.create({ data: { kind: "export", status: "completed", config: {} } });
    expect(await failure(callerFor(viewer).import.report({ runId: other.id }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await failure(callerFor(viewer).import.report({ runId, pageSize: 500 }))).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("import.start refuses bad policy values naming the field", async () => {
    const file = await storeFile(database.db, { fileName: "x.jsonl", purpose: "upload", createdById: researcher.id }, bytesOf("{}"));
    const start = (options: Record<string, unknown>) => failure(callerFor(researcher).import.start({ fileId: file.id, options: { format: "jsonl", mapping: MAPPING, ...options } as never }));
    expect(String(await start({ onInvalid: "ignore" }))).toContain("onInvalid");
    expect(String(await start({ onInvalid: "skip", maxInvalidShare: -0.1 }))).toContain("maxInvalidShare");
    expect(String(await start({ maxInvalidShare: 0.3 }))).toContain("maxInvalidShare");
    expect(String(await start({ maxInvalidShare: 0.3 }))).toContain("applies only when invalid records are skipped");
  });
});
