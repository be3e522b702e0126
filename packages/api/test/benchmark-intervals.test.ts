import type { TestDatabase } from "@stepwiser/db/testing";
import { createWorldDatabase, type SimulatedWorld } from "@stepwiser/jobs/testing/simulated-world";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";
import { storedReplicatesKey } from "../src/services/compare/checkpoints";

/**
 * One interval method per ProcessBench number: a benchmark run's results page and
 * Compare give every number of the run (F1, acc_err and acc_cor per subset, the
 * average F1) the same percentile-bootstrap interval over solutions, on the same
 * gold with the same resamples and seed; a summary written before the accuracy
 * and average intervals were stored reads with the same intervals, recomputed.
 */
describe("benchmark intervals on the results page and in Compare", () => {
  let database: TestDatabase;
  let world: SimulatedWorld;
  beforeAll(async () => {
    ({ world, ...database } = await createWorldDatabase(inject("postgresAdminUrl")));
  });
  afterAll(async () => {
    await database?.drop();
  });

  const caller = () => createCallerFactory(appRouter)({ db: database.db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
  const bounds = (x: { lower: number | null; upper: number | null } | null | undefined) => (x ? { lower: x.lower, upper: x.upper } : null);

  /** The run page's intervals and Compare's for the world's benchmark run (200 resamples, seed 1: the run's own). */
  async function bothPaths() {
    const page = await caller().run.results({ id: world.runs.benchmark });
    if (page.kind !== "benchmark" || !page.summary) throw new Error("expected a benchmark result with its summary");
    // The benchmark and the judge run read the same self-segmented solutions, so Compare's gold is the benchmark's.
    const compare = await caller().compare.checkpoints({ runIds: [world.runs.benchmark, world.runs.judgeWeak], baselineRunId: world.runs.judgeWeak, resamples: 200, seed: 1 });
    return { page, summary: page.summary, compare, row: compare.runs.find((r) => r.id === world.runs.benchmark)! };
  }

  it("are the same interval, number for number, through the run-page service and the Compare path", async () => {
    const { page, summary, compare, row } = await bothPaths();
    expect(compare.gold).toBe(page.subsets.reduce((sum, s) => sum + s.n, 0));
    expect(summary.intervals).toBe("summary");
    for (const subset of page.subsets) {
      const ci = row.bySubset[subset.subset]!.ci;
      expect(bounds(subset.f1), `${subset.subset} F1`).toEqual(ci.f1);
      // Both classes occur in the world, so both accuracies have their interval on the page.
      expect(bounds(subset.accErr), `${subset.subset} acc_err`).toEqual(ci.acc_err);
      expect(bounds(subset.accCor), `${subset.subset} acc_cor`).toEqual(ci.acc_cor);
      expect([subset.f1.estimate, subset.accErr!.estimate, subset.accCor!.estimate]).toEqual([row.bySubset[subset.subset]!.f1, row.bySubset[subset.subset]!.acc_err, row.bySubset[subset.subset]!.acc_cor]);
    }
    // Some interval is not a point: the checks above compare numbers that could differ.
    expect(page.subsets.some((s) => [s.f1, s.accErr!, s.accCor!].some((m) => m.lower! < m.upper!))).toBe(true);
    expect(summary.averageF1.estimate).toBe(row.average.f1);
    // Both judges are the simulated cluster's: Compare marks them, and the benchmark page states what sim-judge-weak's setting predicts.
    expect(compare.runs.map((r) => r.simulatedJudge)).toEqual([true, true]);
    expect(page.simulatorExpectation).toMatchObject({ judge: "sim-judge-weak", accuracy: 0.65, samples: 1 });
    expect(bounds(summary.averageF1)).toEqual(row.average.ci.f1);
    // Both say what the average is over: the world's one subset, a partial average.
    expect([summary.subsetsInAverage, summary.averageIsPartial]).toEqual([["sim"], true]);
    expect(compare.average).toEqual({ subsets_in_average: ["sim"], average_is_partial: true });
  });

  it("a summary stored before the accuracy and average intervals reads with the same intervals, recomputed from its predictions", async () => {
    const { db } = database;
    const before = await bothPaths();
    const run = await db.run.findUniqueOrThrow({ where: { id: world.runs.benchmark }, select: { summary: true } });
    const { acc_err_ci95, acc_cor_ci95, average_f1_ci95, subsets_in_average, average_is_partial, ...legacy } = run.summary as Record<string, unknown>;
    expect([acc_err_ci95, acc_cor_ci95, average_f1_ci95, subsets_in_average, average_is_partial].every((field) => field !== undefined)).toBe(true);
    await db.run.update({ where: { id: world.runs.benchmark }, data: { summary: legacy as object } });
    try {
      const page = await caller().run.results({ id: world.runs.benchmark });
      if (page.kind !== "benchmark" || !page.summary) throw new Error("the legacy summary did not read");
      expect(page.summary.intervals).toBe("recomputed");
      expect({ ...page, summary: { ...page.summary, intervals: "summary" } }).toEqual(before.page);
    } finally {
      await db.run.update({ where: { id: world.runs.benchmark }, data: { summary: run.summary as object } });
    }
  });

  it("Compare never reads replicates stored before the average was stratified", async () => {
    const { db } = database;
    const before = await bothPaths();
    const stored = await db.bootstrapReplicates.findFirstOrThrow({ where: { runId: world.runs.benchmark, resamples: 200, seed: "1" } });
    const prefix = storedReplicatesKey("");
    expect(stored.goldKey.startsWith(prefix)).toBe(true);
    // The same gold's replicates under the bare key, as the earlier version stored them, here filled with a value no resample gives.
    const legacyKey = stored.goldKey.slice(prefix.length);
    const bogus = new Float64Array(stored.values.byteLength / 8).fill(0.123);
    await db.bootstrapReplicates.deleteMany({ where: { runId: world.runs.benchmark } });
    await db.bootstrapReplicates.create({ data: { runId: world.runs.benchmark, goldKey: legacyKey, resamples: 200, seed: "1", subsets: stored.subsets, values: new Uint8Array(bogus.buffer) } });
    const after = await bothPaths();
    expect(after.compare).toEqual(before.compare);
    expect(await db.bootstrapReplicates.count({ where: { runId: world.runs.benchmark, goldKey: stored.goldKey } })).toBe(1);
  });
});
