import { PUBLISHED_PRMBENCH_PRMSCORE } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "../src";

/**
 * PRMBench runs in the results view and on Compare, on hand-built rows: two benchmark runs on
 * a PRMBench import (their summaries' PRMBench block as the benchmark kind writes it) and a
 * ProcessBench benchmark of the same judge model on another dataset. The figures are arbitrary;
 * what is checked is where each one goes.
 */

const judge = (model: string) => ({ judgeEndpoint: model, judge: { name: model, model, baseUrls: [`http://${model}`], maxConcurrency: 4 } });
const ci = (estimate: number) => ({ lower: estimate - 0.1, upper: estimate + 0.1 });
const figures = (prmscore: number, f1: number, negative_f1: number, n: number) => ({ prmscore, f1, negative_f1, n });
const intervals = (prmscore: number, f1: number, negative_f1: number) => ({ prmscore: ci(prmscore), f1: ci(f1), negative_f1: ci(negative_f1) });

/** A benchmark summary with its first-error part over the given subsets (the first-error reading on a PRMBench import). */
function firstErrorSummary(subsets: string[], averageF1: number, extra: Record<string, unknown> = {}) {
  return {
    protocol: "stepwiser-chunk@v2",
    judge: "x",
    subsets: Object.fromEntries(subsets.map((s) => [s, { n: 1, n_error: 1, n_correct: 0, acc_err: 1, acc_cor: 0, f1: averageF1 }])),
    average_f1: averageF1,
    subsets_in_average: subsets,
    average_is_partial: true,
    f1_ci95: Object.fromEntries(subsets.map((s) => [s, ci(averageF1)])),
    acc_err_ci95: Object.fromEntries(subsets.map((s) => [s, ci(1)])),
    acc_cor_ci95: Object.fromEntries(subsets.map((s) => [s, ci(0)])),
    average_f1_ci95: ci(averageF1),
    unparseable: 0,
    missing: 0,
    ...extra,
  };
}

describe("PRMBench runs: their results and their place on Compare's leaderboard", () => {
  let database: TestDatabase;
  let caller: ReturnType<typeof appRouter.createCaller>;
  let prmbenchDataset: string;
  const runs: Record<"medium" | "weak" | "processbench" | "processbenchOther", string> = { medium: "", weak: "", processbench: "", processbenchOther: "" };

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const { db } = database;
    // The PRMBench import: one item per class (first error 0-based as the import stores it) and an all-correct item.
    const prm = await db.dataset.create({ data: { name: "PRMBench sample", source: "prmbench", status: "ready" } });
    prmbenchDataset = prm.id;
    const problem = await db.problem.create({ data: { datasetId: prm.id, textHash: "p", text: "What is 1 + 1?" } });
    const items = [
      { externalId: "circular_0", subset: "circular", label: 1 },
      { externalId: "redundency_0", subset: "redundency", label: 0 },
      { externalId: "correct_0", subset: "correct", label: -1 },
    ];
    const solutionIds: string[] = [];
    for (const item of items) {
      const s = await db.solution.create({ data: { datasetId: prm.id, problemId: problem.id, externalId: item.externalId, subset: item.subset, generator: "prmbench", text: "a\nb", sourceFirstErrorIndex: item.label } });
      await db.segmentation.create({ data: { solutionId: s.id, method: "prmbench-steps" } });
      solutionIds.push(s.id);
    }
    const prmbenchSummary = (prmscore: number) =>
      firstErrorSummary(["circular", "correct", "redundency"], 0.33, {
        prmbench: {
          ...figures(prmscore, 0.75, 0.5, 2),
          // The evaluator's -1: the all-correct class has no error step, so its negative F1 is undefined.
          by_class: { redundency: figures(0.7, 0.8, 0.6, 1), circular: figures(0.5, 0.7, 0.3, 1), correct: figures(-1, 1, -1, 1) },
          ci95: intervals(prmscore, 0.75, 0.5),
          by_class_ci95: { redundency: intervals(0.7, 0.8, 0.6), circular: intervals(0.5, 0.7, 0.3), correct: intervals(-1, 1, -1) },
          invalid: 1,
          missing: 0,
        },
      });
    const prmbenchConfig = (model: string) => ({ datasetId: prm.id, ...judge(model), protocol: "stepwiser-chunk", samples: 1, segmentationMethod: "prmbench-steps", stopAtFirstNegative: false, scoring: "prmbench" });
    for (const [key, model, prmscore] of [["medium", "sim-judge-medium", 0.625], ["weak", "sim-judge-weak", 0.55]] as const) {
      const run = await db.run.create({ data: { kind: "benchmark", name: `PRMBench ${key}`, status: "completed", datasetId: prm.id, config: prmbenchConfig(model), summary: prmbenchSummary(prmscore) } });
      await db.solutionPrediction.createMany({ data: solutionIds.map((solutionId, i) => ({ runId: run.id, solutionId, predictedFirstError: i === 0 ? 1 : -1 })) });
      runs[key] = run.id;
    }

    // A ProcessBench-style dataset with two benchmark runs: one of the same judge model as the medium PRMBench run.
    const pb = await db.dataset.create({ data: { name: "Simulated world", source: "sim", status: "ready" } });
    const pbProblem = await db.problem.create({ data: { datasetId: pb.id, textHash: "q", text: "What is 2 + 2?" } });
    const pbSolutions: string[] = [];
    for (const [i, label] of [1, -1].entries()) {
      const s = await db.solution.create({ data: { datasetId: pb.id, problemId: pbProblem.id, externalId: `sim-${i}`, subset: "sim", generator: "g", text: "a\n\nb", sourceFirstErrorIndex: label } });
      await db.segmentation.create({ data: { solutionId: s.id, method: "processbench-paragraphs" } });
      pbSolutions.push(s.id);
    }
    for (const [key, model, f1] of [["processbench", "sim-judge-medium", 0.42], ["processbenchOther", "sim-judge-strong", 0.8]] as const) {
      const run = await db.run.create({
        data: { kind: "benchmark", name: `ProcessBench ${key}`, status: "completed", datasetId: pb.id, config: { datasetId: pb.id, ...judge(model), protocol: "stepwiser-chunk", samples: 1 }, summary: firstErrorSummary(["sim"], f1) },
      });
      await db.solutionPrediction.createMany({ data: pbSolutions.map((solutionId) => ({ runId: run.id, solutionId, predictedFirstError: 1 })) });
      runs[key] = run.id;
    }
    caller = appRouter.createCaller({ db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "viewer", email: "v@example.test", name: "V", role: "viewer" } });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("gives a PRMBench run's totals and classes with their intervals and PRMBench names, the all-correct class apart", async () => {
    const result = await caller.run.results({ id: runs.medium });
    if (result.kind !== "benchmark") throw new Error(`expected a benchmark result, got ${result.kind}`);
    expect(result.prmbench!.totals).toEqual({ prmscore: { estimate: 0.625, ...ci(0.625) }, f1: { estimate: 0.75, ...ci(0.75) }, negativeF1: { estimate: 0.5, ...ci(0.5) }, n: 2 });
    expect(result.prmbench).toMatchObject({ invalid: 1, missing: 0 });
    // PRMBench's table order (NR. before NCL.), the all-correct items last and out of the totals; -1 passed on as stored.
    expect(result.prmbench!.classes.map((c) => [c.classification, c.abbreviation, c.name, c.dimension?.name ?? null, c.inTotals, c.f1Only])).toEqual([
      ["redundency", "NR.", "Non-Redundancy", "Simplicity", true, false],
      ["circular", "NCL.", "Non-Circular Logic", "Simplicity", true, false],
      ["correct", null, null, null, false, false],
    ]);
    expect(result.prmbench!.classes[2]!.negativeF1).toEqual({ estimate: -1, lower: -1.1, upper: -0.9 });
    // The first-error reading is still there, per class.
    expect(result.subsets.map((s) => s.subset).sort()).toEqual(["circular", "correct", "redundency"]);
    // A ProcessBench run has no PRMBench block.
    const processbench = await caller.run.results({ id: runs.processbench });
    expect(processbench.kind === "benchmark" && processbench.prmbench).toBeNull();
  });

  it("on a PRMBench import: each run's own PRMScore, and beside it its judge's ProcessBench F1, never its own first-error F1", async () => {
    const result = await caller.compare.checkpoints({ runIds: [runs.medium, runs.weak], baselineRunId: runs.weak, resamples: 100 });
    expect(result.benchmark).toBe("prmbench");
    const [medium, weak] = result.runs;
    expect(medium!.prmbench).toEqual({ prmscore: 0.625, f1: 0.75, negativeF1: 0.5, n: 2, ci: ci(0.625), from: null });
    expect(medium!.sameJudgeProcessBench).toMatchObject({ averageF1: 0.42, ci: ci(0.42), subsetsInAverage: ["sim"], averageIsPartial: true, from: { runId: runs.processbench, name: "ProcessBench processbench", datasetName: "Simulated world", protocolRef: "stepwiser-chunk@v2" } });
    // No ProcessBench run of sim-judge-weak: nothing is lent.
    expect(weak!.prmbench).toMatchObject({ prmscore: 0.55, from: null });
    expect(weak!.sameJudgeProcessBench).toBeNull();
    expect(result.publishedPrmbench).toEqual(PUBLISHED_PRMBENCH_PRMSCORE);
  });

  it("on a ProcessBench dataset: a run beside the PRMScore of its judge's PRMBench run, named", async () => {
    const result = await caller.compare.checkpoints({ runIds: [runs.processbench, runs.processbenchOther], baselineRunId: runs.processbenchOther, resamples: 100 });
    expect(result.benchmark).toBe("processbench");
    const [medium, strong] = result.runs;
    expect(medium!.prmbench).toEqual({ prmscore: 0.625, f1: 0.75, negativeF1: 0.5, n: 2, ci: ci(0.625), from: { runId: runs.medium, name: "PRMBench medium", datasetId: prmbenchDataset, datasetName: "PRMBench sample", protocolRef: "stepwiser-chunk@v2" } });
    expect(medium!.sameJudgeProcessBench).toBeNull();
    expect(strong!.prmbench).toBeNull();
  });
});
