import { checkpointOutcomeCounts, goldSubset, judgeCalibration, majorityVerdict, positiveShare, PUBLISHED_PROCESSBENCH_F1, ratingToLabel, resolveHumanLabel, threeWayAgreement, verifierScaling, type ThreeWayChunk, type Verdict } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { appRouter } from "../src";
import { replicatesKey } from "../src/services/compare/checkpoints";
import { loadCommonGoldOutcomes } from "../src/services/compare/gold-outcomes";
import { loadCommonGold, loadComparableRuns } from "../src/services/compare/runs";

/**
 * Three-way agreement, calibration and Maj@K scaling on a hand-built dataset
 * whose every count is worked out in the comments below.
 *
 * Chunk     judge (2 samples)   share  MC   human
 * t-0 #0    P P  → P            1      P    +1 (queue)
 * t-0 #1    P N  → tie → N      ½      P    +1 (queue)
 * t-0 #2    N N  → N            0      N     0 (queue)
 * t-1 #0    P P  → P            1      N    disputed: +1 and −1 (queue)
 * t-1 #1    N ?  → N            0      N    −1 (manual, no queue)
 * t-1 #2    P P  → P            1      P    —
 * t-2 #0    P N  → tie → N      ½      —    —
 * t-2 #1    P P  → P            1      —    —
 * Gold: t-0 no error, t-1 error at #1, t-2 no error.
 */
const P = "Positive";
const N = "Negative";
const U = "unparseable";
const SOLUTIONS: Array<{ externalId: string; label: number; chunks: Array<{ judge: Verdict[]; mc?: "Positive" | "Negative"; human?: Array<{ author: string; rating: number; queue: boolean }> }> }> = [
  {
    externalId: "t-0",
    label: -1,
    chunks: [
      { judge: [P, P], mc: P, human: [{ author: "ann-1", rating: 1, queue: true }] },
      { judge: [P, N], mc: P, human: [{ author: "ann-1", rating: 1, queue: true }] },
      { judge: [N, N], mc: N, human: [{ author: "ann-1", rating: 0, queue: true }] },
    ],
  },
  {
    externalId: "t-1",
    label: 1,
    chunks: [
      { judge: [P, P], mc: N, human: [{ author: "ann-1", rating: 1, queue: true }, { author: "ann-2", rating: -1, queue: true }] },
      { judge: [N, U], mc: N, human: [{ author: "ann-2", rating: -1, queue: false }] },
      { judge: [P, P], mc: P },
    ],
  },
  { externalId: "t-2", label: -1, chunks: [{ judge: [P, N] }, { judge: [P, P] }] },
];

describe("judge × Monte-Carlo × human, calibration and scaling from stored readings", () => {
  let database: TestDatabase;
  let judgeRunId: string;
  let annotateRunId: string;
  let queueId: string;
  let datasetId: string;
  let caller: ReturnType<typeof appRouter.createCaller>;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const { db } = database;
    for (const id of ["ann-1", "ann-2"]) await db.user.create({ data: { id, name: id, email: `${id}@example.test`, role: "annotator" } });
    const dataset = await db.dataset.create({ data: { name: "hand-built", source: "test", status: "ready" } });
    datasetId = dataset.id;
    const problem = await db.problem.create({ data: { datasetId, textHash: "h", text: "What is 1 + 1?" } });
    const judgeRun = await db.run.create({
      data: {
        kind: "judge",
        status: "completed",
        datasetId,
        config: { datasetId, judgeEndpoint: "judge-a", judge: { name: "judge-a", model: "judge-a", baseUrls: ["http://judge-a"], maxConcurrency: 4 }, samples: 2, temperature: 1, tiePolicy: "Negative", stopAtFirstNegative: false, segmentationMethod: "processbench-paragraphs" },
      },
    });
    const annotateRun = await db.run.create({ data: { kind: "annotate", status: "completed", datasetId, config: { datasetId, policyEndpoint: "p", rollouts: 4, labelRules: [{ rule: "abs-q" }] } } });
    const queue = await db.annotationQueue.create({ data: { name: "audit", datasetId, segmentationMethod: "processbench-paragraphs", selection: {} } });
    judgeRunId = judgeRun.id;
    annotateRunId = annotateRun.id;
    queueId = queue.id;

    let minute = 0;
    for (const solution of SOLUTIONS) {
      const stored = await db.solution.create({
        data: { datasetId, problemId: problem.id, externalId: solution.externalId, subset: "t", generator: "g", text: solution.chunks.map((_, i) => `step ${i}`).join("\n\n"), sourceFirstErrorIndex: solution.label },
      });
      const segmentation = await db.segmentation.create({ data: { solutionId: stored.id, method: "processbench-paragraphs" } });
      const votes: Verdict[] = [];
      for (const [index, chunk] of solution.chunks.entries()) {
        const row = await db.chunk.create({ data: { segmentationId: segmentation.id, index, text: `step ${index}`, startOffset: 0, endOffset: 6 } });
        await db.judgeSample.createMany({
          data: chunk.judge.map((verdict, sampleIndex) => ({
            runId: judgeRunId,
            chunkId: row.id,
            sampleIndex,
            promptTemplateId: "stepwiser-judge",
            rationale: `sample ${sampleIndex}: \\boxed{${verdict}}`,
            verdict,
            // As the judge stores one request with n = 2: the prompt on the first sample, completions split.
            promptTokens: sampleIndex === 0 ? 100 : 0,
            completionTokens: 10,
          })),
        });
        const positives = chunk.judge.filter((v) => v === P).length;
        const negatives = chunk.judge.filter((v) => v === N).length;
        votes.push(negatives >= positives && negatives > 0 ? N : P);
        if (chunk.mc) await db.chunkLabel.create({ data: { chunkId: row.id, runId: annotateRunId, rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}', label: chunk.mc } });
        for (const human of chunk.human ?? []) {
          await db.humanLabel.create({
            data: { chunkId: row.id, authorId: human.author, rating: human.rating, source: human.queue ? "annotation" : "manual", queueId: human.queue ? queueId : null, createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute++)) },
          });
        }
      }
      await db.solutionRunStat.create({
        data: { runId: judgeRunId, solutionId: stored.id, datasetId, chunkCount: solution.chunks.length, firstNegative: votes.indexOf(N), negativeCount: votes.filter((v) => v === N).length },
      });
    }
    caller = appRouter.createCaller({ db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "viewer", email: "v@example.test", name: "V", role: "viewer" } });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("offers the judge run, the annotate run with its stored rule, and the queue", async () => {
    const candidates = await caller.compare.candidates({ datasetId });
    expect(candidates.runs.map((r) => [r.id, r.solutions, r.samples, r.judgeModel])).toEqual([[judgeRunId, 3, 2, "judge-a"]]);
    expect(candidates.judgeRuns.map((r) => r.id)).toEqual([judgeRunId]);
    expect(candidates.annotateRuns).toMatchObject([{ id: annotateRunId, rules: [{ rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' }] }]);
    expect(candidates.queues.map((q) => q.id)).toEqual([queueId]);
  });

  it("counts each pair, gives Cohen's kappa, and lists the non-unanimous chunks with their pattern", async () => {
    const result = await caller.compare.threeWay({ judgeRunId, annotateRunId });
    expect(result.rule).toEqual({ rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' });
    // judge × MC on t-0 and t-1 (t-2 has no MC label): MC P → judge P 2, N 1; MC N → judge P 1, N 2.
    expect(result.judgeVsMc.matrix.counts).toEqual({ Positive: { Positive: 2, Negative: 1, unparseable: 0 }, Negative: { Positive: 1, Negative: 2, unparseable: 0 } });
    // p_o = 4/6, p_e = (3·3 + 3·3)/36 = ½ → κ = (24 − 18)/(36 − 18) = 1/3
    expect(result.judgeVsMc.kappa).toBeCloseTo(1 / 3, 12);
    // judge × human on t-0 #0–2 and t-1 #1 (t-1 #0 is disputed): human P → judge P 1, N 2; human N → judge N 1.
    expect(result.judgeVsHuman.matrix.counts).toEqual({ Positive: { Positive: 1, Negative: 2, unparseable: 0 }, Negative: { Positive: 0, Negative: 1, unparseable: 0 } });
    // p_o = 2/4, products 3·1 + 1·3 = 6 → κ = (8 − 6)/(16 − 6) = 0.2
    expect(result.judgeVsHuman.kappa).toBeCloseTo(0.2, 12);
    // MC × human on the same four: human P → MC P 2, N 1; human N → MC N 1. κ = (12 − 8)/(16 − 8) = ½
    expect(result.mcVsHuman.matrix.counts).toEqual({ Positive: { Positive: 2, Negative: 1, unparseable: 0 }, Negative: { Positive: 0, Negative: 1, unparseable: 0 } });
    expect(result.mcVsHuman.kappa).toBeCloseTo(0.5, 12);
    expect(result).toMatchObject({ chunks: 8, humanRated: 4, disputed: 1, complete: 4, unanimous: 2, patterns: { all_differ: 0, human_alone: 1, judge_alone: 1, mc_alone: 0 } });
    expect(result.list.items.map((c) => [c.externalId, c.index, c.pattern])).toEqual([
      ["t-0", 1, "judge_alone"],
      ["t-0", 2, "human_alone"],
    ]);
    const humanAlone = await caller.compare.threeWay({ judgeRunId, annotateRunId, pattern: "human_alone" });
    expect(humanAlone.list).toMatchObject({ total: 1, items: [{ externalId: "t-0", index: 2, judge: N, mc: N, human: 0, judgeShare: 0 }] });
  });

  it("restricts the human reading to one annotation queue", async () => {
    const result = await caller.compare.threeWay({ judgeRunId, annotateRunId, queueId });
    // t-1 #1's manual −1 drops out; the queue's dispute on t-1 #0 stays a dispute.
    expect(result).toMatchObject({ humanRated: 3, disputed: 1, complete: 3, unanimous: 1 });
    expect(result.mcVsHuman.matrix.total).toBe(3);
  });

  it("bins the judge's vote share against the human or the Monte-Carlo label", async () => {
    const human = await caller.compare.calibration({ judgeRunId, reference: "human", bins: 2 });
    // [0, ½): t-0 #2 (0, neutral → P), t-1 #1 (0, N) → mean 0, observed ½; [½, 1]: t-0 #0 (1, P), t-0 #1 (½, P) → mean ¾, observed 1.
    expect(human.bins.map((b) => [b.count, b.meanPredicted, b.observedRate])).toEqual([
      [2, 0, 0.5],
      [2, 0.75, 1],
    ]);
    expect(human.expectedCalibrationError).toBeCloseTo(0.5 * 0.5 + 0.5 * 0.25, 12);
    expect(human).toMatchObject({ total: 4, skipped: 4 });
    const mc = await caller.compare.calibration({ judgeRunId, reference: "mc", annotateRunId, bins: 2 });
    // [0, ½): two chunks at share 0, both MC N; [½, 1]: shares 1, ½, 1, 1 with MC P, P, N, P → mean 0.875, observed ¾.
    expect(mc.bins.map((b) => [b.count, b.meanPredicted, b.observedRate])).toEqual([
      [2, 0, 0],
      [4, 0.875, 0.75],
    ]);
    expect(mc.expectedCalibrationError).toBeCloseTo((4 / 6) * 0.125, 12);
    expect(mc).toMatchObject({ total: 6, skipped: 2 });
    await expect(caller.compare.calibration({ judgeRunId, reference: "mc" })).rejects.toThrow(/needs an annotate run/);
  });

  it("replays Maj@K from the stored samples: F1 and tokens per solution for K = 1 and 2", async () => {
    const result = await caller.compare.scaling({ runIds: [judgeRunId], draws: 200, seed: 1 });
    const curve = result.runs[0]!;
    expect(curve).toMatchObject({ maxK: 2, solutions: 3 });
    const [k1, k2] = curve.points;
    // K = 2 is the run itself: t-0 → 1 (wrong), t-1 → 1 (right), t-2 → 0 (wrong): acc_err 1, acc_cor 0 → F1 0.
    // Every chunk costs its prompt once (100) plus both completions (20): 8 chunks · 120 / 3 solutions.
    expect(k2).toMatchObject({ k: 2, f1: 0, tokensPerSolution: 320 });
    // K = 1: t-1 is right when #1 draws N (½; the unparseable sample reads as Positive, as the judge run's stat does),
    // t-2 when #0 draws P (½); F1 = 2·1·½/(1 + ½) = ⅔ only when both → E[F1] = ¼·⅔ = 1/6. Tokens: 8 · 110 / 3.
    expect(k1!.k).toBe(1);
    expect(k1!.f1).toBeCloseTo(1 / 6, 1);
    expect(k1!.f1Range).toEqual({ min: 0, max: 2 / 3 });
    expect(k1!.tokensPerSolution).toBeCloseTo(880 / 3, 9);
  });

  it("compares a run on part of the dataset with a whole-dataset run on the solutions both were asked to judge", async () => {
    const { db } = database;
    const [t0, t1] = await Promise.all(["t-0", "t-1"].map((externalId) => db.solution.findFirstOrThrow({ where: { datasetId, externalId } })));
    const partial = await db.run.create({ data: { kind: "judge", status: "completed", datasetId, config: { datasetId, judgeEndpoint: "judge-b", solutionIds: [t0!.id, t1!.id], segmentationMethod: "processbench-paragraphs" } } });
    await db.solutionRunStat.createMany({
      data: [
        { runId: partial.id, solutionId: t0!.id, datasetId, chunkCount: 3, firstNegative: -1, negativeCount: 0 }, // right
        { runId: partial.id, solutionId: t1!.id, datasetId, chunkCount: 3, firstNegative: 1, negativeCount: 1 }, // right
      ],
    });
    const result = await caller.compare.checkpoints({ runIds: [partial.id, judgeRunId], baselineRunId: judgeRunId, resamples: 100 });
    expect(result.gold).toBe(2);
    const [b, a] = result.runs;
    expect(b!.bySubset.t).toMatchObject({ n: 2, acc_err: 1, acc_cor: 1, f1: 1 });
    // The whole-dataset run on t-0 (predicts 1: wrong) and t-1 (right) only.
    expect(a!.bySubset.t).toMatchObject({ n: 2, acc_err: 1, acc_cor: 0, f1: 0 });
    expect(b!.delta!.bySubset.t!.f1.estimate).toBe(1);
    // A run stored before protocols speaks the StepWiser chunk judge; the published references come along, each citing its own table.
    expect(b!.protocol).toEqual({ id: "stepwiser-chunk", version: 1, label: "StepWiser chunk judge", ref: "stepwiser-chunk@v1", template: "stepwiser-judge@v1" }); // stored without a judge prompt: v1
    expect(result.published.map((p) => [p.model, p.averageF1, p.source])).toContainEqual(["StepWiser Rel-Effective (Qwen2.5-7B-chunk)", 61.9, "StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5"]);
    expect(result.published).toEqual(PUBLISHED_PROCESSBENCH_F1);
    const differing = await caller.compare.disagreements({ runA: partial.id, runB: judgeRunId });
    expect(differing.items).toMatchObject([{ externalId: "t-0", gold: -1, a: -1, b: 1, kind: "a_right" }]);
  });

  it("counts outcomes and keys replicates in the database as the loaded gold does, and reads the stored replicates back to the same comparison", async () => {
    const { db } = database;
    const [t0, t2] = await Promise.all(["t-0", "t-2"].map((externalId) => db.solution.findFirstOrThrow({ where: { datasetId, externalId } })));
    // t-0 unparseable, t-1 missing, t-2 right (no error).
    const third = await db.run.create({ data: { kind: "benchmark", status: "completed", datasetId, config: { datasetId, judgeEndpoint: "judge-c", segmentationMethod: "processbench-paragraphs" } } });
    await db.solutionPrediction.createMany({
      data: [
        { runId: third.id, solutionId: t0!.id, predictedFirstError: null },
        { runId: third.id, solutionId: t2!.id, predictedFirstError: -1 },
      ],
    });
    const runs = await loadComparableRuns(db, [third.id, judgeRunId]);
    const outcomes = await loadCommonGoldOutcomes(db, runs);
    const { gold, predictions } = await loadCommonGold(db, runs);
    const subsets = [...new Set(gold.map(goldSubset))].sort((a, b) => a.localeCompare(b));
    expect(outcomes).toMatchObject({ gold: 3, subsets });
    runs.forEach((run, i) => {
      const own = predictions.get(run.id)!;
      expect(outcomes.runs[i]!.replicatesKey, run.id).toBe(replicatesKey(gold, own));
      expect(outcomes.runs[i]!.counts, run.id).toEqual(checkpointOutcomeCounts(gold, gold.map((g) => subsets.indexOf(goldSubset(g))), subsets.length, own));
    });
    expect(outcomes.runs[0]!.counts).toMatchObject({ missing: 1, unparseable: 1 });
    expect(outcomes.runs[0]!.replicatesKey).not.toBe(outcomes.runs[1]!.replicatesKey);

    await db.bootstrapReplicates.deleteMany({ where: { runId: { in: [third.id, judgeRunId] } } });
    const drawn = await caller.compare.checkpoints({ runIds: [third.id, judgeRunId], baselineRunId: judgeRunId, resamples: 200 });
    expect(await db.bootstrapReplicates.count({ where: { runId: { in: [third.id, judgeRunId] }, resamples: 200 } })).toBe(2);
    const counted = await caller.compare.checkpoints({ runIds: [third.id, judgeRunId], baselineRunId: judgeRunId, resamples: 200 });
    expect(JSON.stringify(counted)).toBe(JSON.stringify(drawn));
    expect(counted.runs[0]).toMatchObject({ missing: 1, unparseable: 1 });
    // A changed prediction changes the key: nothing stored answers for it, the gold is read and the run drawn again.
    await db.solutionPrediction.updateMany({ where: { runId: third.id, solutionId: t0!.id }, data: { predictedFirstError: -1 } });
    const changed = await caller.compare.checkpoints({ runIds: [third.id, judgeRunId], baselineRunId: judgeRunId, resamples: 200 });
    expect(changed.runs[0]).toMatchObject({ missing: 1, unparseable: 0 });
    expect(await db.bootstrapReplicates.count({ where: { runId: third.id, resamples: 200 } })).toBe(2);
  });

  it("counts in the database exactly what core's threeWayAgreement and judgeCalibration give over every chunk's readings", async () => {
    // Every chunk's three readings read row by row, as a small dataset allows, then handed to core.
    const { db } = database;
    const chunks = await db.chunk.findMany({
      where: { segmentation: { solution: { datasetId } } },
      select: { id: true, index: true, segmentation: { select: { solutionId: true, solution: { select: { externalId: true } } } } },
    });
    const samples = await db.judgeSample.findMany({ where: { runId: judgeRunId }, select: { chunkId: true, verdict: true } });
    const labels = await db.chunkLabel.findMany({ where: { runId: annotateRunId }, select: { chunkId: true, label: true } });
    for (const queue of [undefined, queueId]) {
      const humans = await db.humanLabel.findMany({ where: queue ? { queueId: queue } : {}, select: { chunkId: true, authorId: true, rating: true, source: true, createdAt: true } });
      const readings: ThreeWayChunk[] = chunks
        .map((c) => {
          const votes = samples.filter((s) => s.chunkId === c.id).map((s) => s.verdict);
          const own = humans.filter((h) => h.chunkId === c.id);
          const final = own.length ? resolveHumanLabel(own) : null;
          return {
            chunkId: c.id,
            solutionId: c.segmentation.solutionId,
            externalId: c.segmentation.solution.externalId,
            index: c.index,
            judge: votes.length ? majorityVerdict(votes, "Negative").verdict : null,
            judgeShare: votes.length ? positiveShare(votes) : null,
            mc: labels.find((l) => l.chunkId === c.id)?.label ?? null,
            human: final && (final.status === "agreed" || final.status === "adjudicated") ? final.rating : null,
          };
        })
        .filter((c) => c.judge !== null || c.mc !== null || c.human !== null)
        .sort((a, b) => a.externalId.localeCompare(b.externalId, undefined, { numeric: true }) || a.index - b.index);
      const expected = threeWayAgreement(readings);
      const result = await caller.compare.threeWay({ judgeRunId, annotateRunId, ...(queue ? { queueId: queue } : {}) });
      expect(result.judgeVsMc).toEqual(expected.judgeVsMc);
      expect(result.judgeVsHuman).toEqual(expected.judgeVsHuman);
      expect(result.mcVsHuman).toEqual(expected.mcVsHuman);
      expect({ complete: result.complete, unanimous: result.unanimous, patterns: result.patterns }).toEqual({ complete: expected.complete, unanimous: expected.unanimous, patterns: expected.patterns });
      expect(result.chunks).toBe(readings.length);
      expect(result.humanRated).toBe(readings.filter((c) => c.human !== null).length);
      expect(result.list.items).toEqual(expected.disagreements);

      const judged = readings.filter((c) => c.judge !== null);
      const human = await caller.compare.calibration({ judgeRunId, reference: "human", bins: 4, ...(queue ? { queueId: queue } : {}) });
      const expectedHuman = judgeCalibration(judged.map((c) => ({ judgeShare: c.judgeShare, reference: c.human === null ? null : ratingToLabel(c.human) })), { bins: 4 });
      expect({ bins: human.bins, ece: human.expectedCalibrationError, total: human.total, skipped: human.skipped }).toEqual({
        bins: expectedHuman.bins,
        ece: expectedHuman.expectedCalibrationError,
        total: expectedHuman.total,
        skipped: expectedHuman.skipped,
      });
    }
    const judged = await caller.compare.calibration({ judgeRunId, reference: "mc", annotateRunId, bins: 4 });
    const all = chunks.map((c) => {
      const votes = samples.filter((s) => s.chunkId === c.id).map((s) => s.verdict);
      return { votes, mc: labels.find((l) => l.chunkId === c.id)?.label ?? null };
    });
    const expectedMc = judgeCalibration(all.filter((c) => c.votes.length).map((c) => ({ judgeShare: positiveShare(c.votes), reference: c.mc })), { bins: 4 });
    expect(judged.bins).toEqual(expectedMc.bins);
    expect(judged.expectedCalibrationError).toBeCloseTo(expectedMc.expectedCalibrationError, 15);
    expect([judged.total, judged.skipped]).toEqual([expectedMc.total, expectedMc.skipped]);
  });

  it("replays Maj@K page by page as verifierScaling does over every solution at once", async () => {
    const { db } = database;
    const rows = await db.solution.findMany({
      where: { datasetId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { externalId: true, subset: true, sourceFirstErrorIndex: true, segmentations: { select: { chunks: { orderBy: { index: "asc" }, select: { id: true } } } } },
    });
    const expected = async () => {
      const samples = await db.judgeSample.findMany({ where: { runId: judgeRunId }, orderBy: { sampleIndex: "asc" }, select: { chunkId: true, verdict: true, promptTokens: true, completionTokens: true } });
      const solutions = rows.map((t) => ({
        id: t.externalId,
        label: t.sourceFirstErrorIndex!,
        subset: t.subset!,
        chunks: t.segmentations[0]!.chunks.map((c) => ({ samples: samples.filter((s) => s.chunkId === c.id).map(({ verdict, promptTokens, completionTokens }) => ({ verdict, promptTokens, completionTokens })) })),
      }));
      return verifierScaling(solutions, { draws: 50, seed: 3, tiePolicy: "Negative", stopAtFirstNegative: false, unparseableChunk: "Positive" });
    };
    const curveOf = async () => {
      const result = await caller.compare.scaling({ runIds: [judgeRunId], draws: 50, seed: 3 });
      return { maxK: result.runs[0]!.maxK, solutions: result.runs[0]!.solutions, points: result.runs[0]!.points };
    };
    expect(await curveOf()).toEqual(await expected());

    // Once the run has finished, its curve is stored the first time and read back after: the same numbers.
    await db.run.update({ where: { id: judgeRunId }, data: { finishedAt: new Date("2026-01-01T00:00:00Z") } });
    const first = await curveOf();
    expect(await db.scalingCurve.count({ where: { runId: judgeRunId } })).toBe(1);
    expect(await curveOf()).toEqual(first);
    expect(first).toEqual(await expected());
    // A run resumed and finished again (more or other samples) is replayed anew, not read from the stored curve.
    const changed = await db.judgeSample.findFirstOrThrow({ where: { runId: judgeRunId }, orderBy: { id: "asc" } });
    await db.judgeSample.update({ where: { id: changed.id }, data: { completionTokens: changed.completionTokens + 300 } });
    await db.run.update({ where: { id: judgeRunId }, data: { finishedAt: new Date("2026-01-02T00:00:00Z") } });
    const again = await curveOf();
    expect(again).toEqual(await expected());
    expect(again).not.toEqual(first);
    expect(await db.scalingCurve.count({ where: { runId: judgeRunId } })).toBe(2);
    await db.judgeSample.update({ where: { id: changed.id }, data: { completionTokens: changed.completionTokens } });
    await db.run.update({ where: { id: judgeRunId }, data: { finishedAt: null } });
  });

  it("stores finished runs' judge × Monte-Carlo counts and gold outcomes, and counts again once their rows or the dataset's solutions change", async () => {
    const { db } = database;
    const views = async () => ({
      threeWay: await caller.compare.threeWay({ judgeRunId, annotateRunId }),
      calibration: await caller.compare.calibration({ judgeRunId, reference: "mc", annotateRunId, bins: 2 }),
      human: await caller.compare.calibration({ judgeRunId, reference: "human", bins: 2 }),
    });
    const unfinished = await views();
    expect(await db.readingGroupCounts.count()).toBe(0);
    await db.run.updateMany({ where: { id: { in: [judgeRunId, annotateRunId] } }, data: { finishedAt: new Date("2026-01-01T00:00:00Z") } });
    expect(await views()).toEqual(unfinished);
    // Counted once per (judge run, labels): with the rule's labels and without.
    expect(await db.readingGroupCounts.count({ where: { judgeRunId } })).toBe(2);
    await db.readingGroupCounts.updateMany({ where: { judgeRunId }, data: { createdAt: new Date("2000-01-01T00:00:00Z") } });
    expect(await views()).toEqual(unfinished);
    expect(await db.readingGroupCounts.count({ where: { judgeRunId, createdAt: { gt: new Date("2001-01-01T00:00:00Z") } } })).toBe(0);

    // A label of the finished annotate run changed: counted again, the same as counting with nothing stored.
    const label = await db.chunkLabel.findFirstOrThrow({ where: { runId: annotateRunId, label: "Positive" }, orderBy: { id: "asc" } });
    await db.chunkLabel.update({ where: { id: label.id }, data: { label: "Negative" } });
    const relabelled = await views();
    expect(relabelled.threeWay.judgeVsMc).not.toEqual(unfinished.threeWay.judgeVsMc);
    await db.readingGroupCounts.deleteMany({});
    expect(await views()).toEqual(relabelled);
    await db.chunkLabel.update({ where: { id: label.id }, data: { label: "Positive" } });
    expect(await views()).toEqual(unfinished);

    // Gold outcomes of two finished runs: stored, read back, and counted again after a prediction or a gold label changes.
    const [t0] = await Promise.all(["t-0"].map((externalId) => db.solution.findFirstOrThrow({ where: { datasetId, externalId } })));
    const other = await db.run.create({ data: { kind: "judge", status: "completed", datasetId, finishedAt: new Date("2026-01-01T00:00:00Z"), config: { datasetId, judgeEndpoint: "judge-d", segmentationMethod: "processbench-paragraphs" } } });
    await db.solutionRunStat.create({ data: { runId: other.id, solutionId: t0!.id, datasetId, chunkCount: 3, firstNegative: -1, negativeCount: 0 } });
    const compare = () => caller.compare.checkpoints({ runIds: [other.id, judgeRunId], baselineRunId: judgeRunId, resamples: 100 });
    // Disagreements of finished runs are cut from a stored list: every filter, page and side gives what the one-statement page gives.
    const filters = [{}, { kind: "a_right" as const }, { kind: "b_right" as const }, { goldFirstError: "none" as const }, { goldFirstError: "error" as const }, { goldFirstError: 1 }, { subset: "t" }, { subset: "u" }, { cursor: 1, limit: 1 }];
    const pages = async () => {
      const out = [];
      for (const filter of filters) for (const [runA, runB] of [[other.id, judgeRunId], [judgeRunId, other.id]]) out.push(await caller.compare.disagreements({ runA: runA!, runB: runB!, ...filter }));
      return out;
    };
    const stored = await pages();
    expect(await db.disagreementList.count()).toBe(1);
    expect(stored[0]!.items.length).toBeGreaterThan(0);
    // Listed once, as one row per differing solution.
    expect(await db.disagreementItem.count()).toBe(stored[0]!.total);
    await db.run.update({ where: { id: other.id }, data: { finishedAt: null } });
    expect(JSON.stringify(await pages())).toBe(JSON.stringify(stored));
    await db.run.update({ where: { id: other.id }, data: { finishedAt: new Date("2026-01-01T00:00:00Z") } });
    const first = await compare();
    expect(await db.goldOutcomeCounts.count()).toBe(1);
    expect(await compare()).toEqual(first);
    // Either side first: one stored count, read back (not counted again).
    const { version } = await db.goldOutcomeCounts.findFirstOrThrow();
    const swapped = await caller.compare.checkpoints({ runIds: [judgeRunId, other.id], baselineRunId: judgeRunId, resamples: 100 });
    expect(swapped).toEqual({ ...first, runs: [...first.runs].reverse() });
    expect((await db.goldOutcomeCounts.findFirstOrThrow()).version).toBe(version);
    expect(await db.goldOutcomeCounts.count()).toBe(1);
    await db.solutionRunStat.update({ where: { runId_solutionId: { runId: other.id, solutionId: t0!.id } }, data: { firstNegative: 0 } });
    const wrong = await compare();
    expect(wrong.runs[0]!.bySubset.t).toMatchObject({ acc_cor: 0 });
    expect(first.runs[0]!.bySubset.t).toMatchObject({ acc_cor: 1 / 2 });
    // The pair's disagreements are listed anew under the new version: the old items replaced, every page as the one-statement page gives.
    const relisted = await pages();
    expect(JSON.stringify(relisted)).not.toBe(JSON.stringify(stored));
    expect(await db.disagreementList.count()).toBe(1);
    expect(await db.disagreementItem.count()).toBe(relisted[0]!.total);
    await db.run.update({ where: { id: other.id }, data: { finishedAt: null } });
    expect(JSON.stringify(await pages())).toBe(JSON.stringify(relisted));
    await db.run.update({ where: { id: other.id }, data: { finishedAt: new Date("2026-01-01T00:00:00Z") } });
    await db.solution.update({ where: { id: t0!.id }, data: { sourceFirstErrorIndex: 0 } });
    const relabelledGold = await compare();
    expect(relabelledGold.runs[0]!.bySubset.t).toMatchObject({ n_error: 2, n_correct: 1 });
    await db.goldOutcomeCounts.deleteMany({});
    expect(await compare()).toEqual(relabelledGold);
    await db.solution.update({ where: { id: t0!.id }, data: { sourceFirstErrorIndex: -1 } });
    await db.run.delete({ where: { id: other.id } });
    await db.run.updateMany({ where: { id: { in: [judgeRunId, annotateRunId] } }, data: { finishedAt: null } });
  });

  it("shows one solution's chunks with each run's samples lined up, and its prediction", async () => {
    const solution = await database.db.solution.findFirstOrThrow({ where: { datasetId, externalId: "t-1" } });
    const view = await caller.compare.item({ solutionId: solution.id, runIds: [judgeRunId] });
    expect(view.solution).toMatchObject({ externalId: "t-1", gold: 1 });
    expect(view.runs[0]).toMatchObject({ prediction: 1, predicted: true, alignedWithShownChunks: true });
    expect(view.chunks.map((c) => c.judgements[0]!.vote?.verdict)).toEqual([P, N, P]);
    expect(view.chunks[1]!.judgements[0]!.samples.map((s) => s.rationale)).toEqual(["sample 0: \\boxed{Negative}", "sample 1: \\boxed{unparseable}"]);
  });
});
