import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { cached, disagreementListStore, goldOutcomeCountsStore, readingGroupCountsStore, rowsVersion, type CacheClient } from "../src/services/compare/cache";
import type { StoredDisagreements } from "../src/services/compare/disagreements";
import type { StoredOutcomes } from "../src/services/compare/gold-outcomes";
import type { ReadingGroupRow } from "../src/services/compare/readings";

/**
 * The compare cache (`cached`): a result is computed once and read back while
 * its version stands, computed again under a new version, never stored without
 * one, and callers that race on one version all get the value of that version.
 */

/** A compute that counts its calls and returns `value`. */
function counted<T>(value: T) {
  const compute = async () => {
    compute.calls += 1;
    return value;
  };
  compute.calls = 0;
  return compute;
}

/** Computes that return `value` only once `callers` of them have started: every caller has found nothing stored before any writes. */
function racing<T>(value: T, callers: number) {
  let started = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    started += 1;
    if (started === callers) release();
    await all;
    return value;
  };
}

const outcomes = (gold: number): StoredOutcomes => ({ gold, subsets: ["t"], runs: { a: { classes: [gold, 0, 0, 0], missing: 0, unparseable: 0, replicatesKey: `key ${gold}` } } });

describe("the compare cache", () => {
  let database: TestDatabase;
  let runId: string;
  let solutionId: string;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const { db } = database;
    const dataset = await db.dataset.create({ data: { name: "cache", source: "test", status: "ready" } });
    datasetId = dataset.id;
    const problem = await db.problem.create({ data: { datasetId, textHash: "h", text: "What is 1 + 1?" } });
    const solution = await db.solution.create({ data: { datasetId, problemId: problem.id, externalId: "t-0", subset: "t", generator: "g", text: "step 0", sourceFirstErrorIndex: -1 } });
    solutionId = solution.id;
    const run = await db.run.create({ data: { kind: "judge", status: "completed", datasetId, config: { datasetId, judgeEndpoint: "judge-a", segmentationMethod: "processbench-paragraphs" } } });
    runId = run.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("computes once and reads the stored result back while its version stands", async () => {
    const { db } = database;
    const store = goldOutcomeCountsStore(db, "a,b");
    const compute = counted(outcomes(3));
    expect(await cached(store, "v1", compute)).toEqual(outcomes(3));
    expect(await cached(store, "v1", compute)).toEqual(outcomes(3));
    expect(compute.calls).toBe(1);
    expect(await db.goldOutcomeCounts.findUniqueOrThrow({ where: { runIds: "a,b" } })).toMatchObject({ version: "v1", outcomes: outcomes(3) });
  });

  it("computes again, and stores, once the version changes", async () => {
    const { db } = database;
    // The version of a finished run's rows: a row of the run written after it finished gives another.
    expect(await rowsVersion(db, { runIds: [runId] })).toBeNull();
    await db.run.update({ where: { id: runId }, data: { finishedAt: new Date("2026-01-01T00:00:00Z") } });
    const before = await rowsVersion(db, { runIds: [runId], datasetIds: [datasetId] });
    expect(before).not.toBeNull();
    const store = readingGroupCountsStore(db, { judgeRunId: runId, labelsKey: "" });
    const first: ReadingGroupRow[] = [{ pos: 2, neg: 0, unp: 0, label: null, chunks: 1 }];
    const second: ReadingGroupRow[] = [{ pos: 1, neg: 1, unp: 0, label: null, chunks: 1 }];
    const computeFirst = counted(first);
    expect(await cached(store, before, computeFirst)).toEqual(first);
    expect(await cached(store, before, computeFirst)).toEqual(first);
    expect(computeFirst.calls).toBe(1);

    await db.solutionRunStat.create({ data: { runId, solutionId, datasetId, chunkCount: 1, firstNegative: -1, negativeCount: 0 } });
    const after = await rowsVersion(db, { runIds: [runId], datasetIds: [datasetId] });
    expect(after).not.toBe(before);
    const computeSecond = counted(second);
    expect(await cached(store, after, computeSecond)).toEqual(second);
    expect(await cached(store, after, computeSecond)).toEqual(second);
    expect(computeSecond.calls).toBe(1);
    expect(await db.readingGroupCounts.findMany({ where: { judgeRunId: runId } })).toMatchObject([{ labelsKey: "", version: after, groups: second }]);
  });

  it("computes every time and stores nothing without a version", async () => {
    const { db } = database;
    const compute = counted(outcomes(5));
    const store = goldOutcomeCountsStore(db, "unfinished");
    expect(await cached(store, null, compute)).toEqual(outcomes(5));
    expect(await cached(store, null, compute)).toEqual(outcomes(5));
    expect(compute.calls).toBe(2);
    expect(await db.goldOutcomeCounts.count({ where: { runIds: "unfinished" } })).toBe(0);
    const list = disagreementListStore(db, "unfinished");
    expect(await cached(list, null, async () => ({ gold: 0, subsets: [], groups: [] }))).toEqual({ gold: 0, subsets: [], groups: [] });
    expect(await db.disagreementList.count({ where: { runIds: "unfinished" } })).toBe(0);
  });

  it("gives two concurrent callers of one version the same right value", async () => {
    const { db } = database;
    const store = goldOutcomeCountsStore(db, "c,d");
    // Both find nothing stored, both compute, both write the row.
    const compute = racing(outcomes(7), 2);
    expect(await Promise.all([cached(store, "v1", compute), cached(store, "v1", compute)])).toEqual([outcomes(7), outcomes(7)]);
    expect(await db.goldOutcomeCounts.findUniqueOrThrow({ where: { runIds: "c,d" } })).toMatchObject({ version: "v1", outcomes: outcomes(7) });
    const readBack = counted(outcomes(0));
    expect(await cached(store, "v1", readBack)).toEqual(outcomes(7));
    expect(readBack.calls).toBe(0);

    // A store with a compound key, raced on a version it has not stored yet.
    const groups = readingGroupCountsStore(db, { judgeRunId: runId, labelsKey: "race" });
    const rows: ReadingGroupRow[] = [{ pos: 0, neg: 2, unp: 0, label: "Negative", chunks: 4 }];
    const computeRows = racing(rows, 2);
    expect(await Promise.all([cached(groups, "v2", computeRows), cached(groups, "v2", computeRows)])).toEqual([rows, rows]);
    expect(await db.readingGroupCounts.findUniqueOrThrow({ where: { judgeRunId_labelsKey: { judgeRunId: runId, labelsKey: "race" } } })).toMatchObject({ version: "v2", groups: rows });
  });

  it("lists an exclusive result once under its lock while others wait and read it, and replaces it under a new version", async () => {
    const { db } = database;
    const runIds = "e,f";
    const list = (gold: number): StoredDisagreements => ({ gold, subsets: ["t"], groups: [{ subset: "t", label: -1, aRight: 1, bRight: 0, bothWrong: 0 }] });
    let calls = 0;
    // As the disagreement list does: its items are written by the computation, in the store's transaction.
    const compute = (gold: number) => async (tx: CacheClient) => {
      calls += 1;
      expect(await tx.disagreementList.findUniqueOrThrow({ where: { runIds } })).toMatchObject({ version: "listing" });
      await tx.disagreementItem.create({ data: { runIds, position: 0, solutionId, externalId: "t-0", subset: "t", label: -1, a: -1, b: gold } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return list(gold);
    };
    const store = disagreementListStore(db, runIds);
    expect(await Promise.all([cached(store, "v1", compute(1)), cached(store, "v1", compute(1)), cached(store, "v1", compute(1))])).toEqual([list(1), list(1), list(1)]);
    expect(calls).toBe(1);
    expect(await db.disagreementList.findUniqueOrThrow({ where: { runIds } })).toMatchObject({ version: "v1", list: list(1) });
    expect(await db.disagreementItem.findMany({ where: { runIds }, select: { b: true } })).toEqual([{ b: 1 }]);

    // A new version: the old list and its items go, the new ones are written, in one transaction.
    expect(await Promise.all([cached(store, "v2", compute(2)), cached(store, "v2", compute(2))])).toEqual([list(2), list(2)]);
    expect(calls).toBe(2);
    expect(await db.disagreementList.findUniqueOrThrow({ where: { runIds } })).toMatchObject({ version: "v2", list: list(2) });
    expect(await db.disagreementItem.findMany({ where: { runIds }, select: { b: true } })).toEqual([{ b: 2 }]);
  });
});
