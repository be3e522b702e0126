import { appRouter, createCallerFactory, ensureAdminUser, type SessionUser } from "@stepwiser/api";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, isTerminal, simWorldChunkTruth, startWorker, type JobQueue, type RunningWorker } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  completeDemoQueue,
  DEMO_ANNOTATORS,
  DEMO_DATASET_NAME,
  DEMO_LABELLED_PER_ANNOTATOR,
  DEMO_QUEUE_ITEMS,
  DEMO_QUEUE_NAME,
  DEMO_RUNS,
  DEMO_WORLD,
  demoModeOf,
  demoRatings,
  seedDemoData,
} from "../src/demo-data";

describe("demo annotators' ratings", () => {
  it("give the world's truth, flipped where the annotator's seeded draw falls below their error rate; the same every time", () => {
    const truth = Array.from({ length: 400 }, (_, i) => i % 3 !== 0);
    for (const annotator of DEMO_ANNOTATORS) {
      const ratings = demoRatings(truth, annotator, "sim-1-0");
      expect(demoRatings(truth, annotator, "sim-1-0")).toEqual(ratings);
      expect(new Set(ratings)).toEqual(new Set([-1, 1]));
      const slips = ratings.filter((rating, i) => (rating === 1) !== truth[i]).length;
      // 400 draws at rate p: within four standard deviations of 400·p.
      expect(Math.abs(slips - 400 * annotator.errorRate)).toBeLessThan(4 * Math.sqrt(400 * annotator.errorRate * (1 - annotator.errorRate)));
    }
    // No error rate, no slip; another solution key, other draws.
    expect(demoRatings([true, false, true], { email: "x", errorRate: 0 }, "k")).toEqual([1, -1, 1]);
    const [a] = DEMO_ANNOTATORS;
    expect(demoRatings(truth, a, "sim-2-0")).not.toEqual(demoRatings(truth, a, "sim-1-0"));
  });

  it("reads STEPWISER_DEMO_DATA, refusing what it does not know", () => {
    expect(demoModeOf(undefined)).toBe("1");
    expect(demoModeOf("sim")).toBe("sim");
    expect(() => demoModeOf("yes")).toThrow(/STEPWISER_DEMO_DATA must be 1, sim or 0 \(got "yes"\)/);
  });
});

/** Cohen's κ of two raters' −1/+1 ratings of the same units. */
function binaryKappa(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const observed = a.filter((rating, i) => rating === b[i]).length / n;
  const positiveA = a.filter((r) => r === 1).length / n;
  const positiveB = b.filter((r) => r === 1).length / n;
  const chance = positiveA * positiveB + (1 - positiveA) * (1 - positiveB);
  return (observed - chance) / (1 - chance);
}

describe("the demo annotators on the demo world", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("slip at about their stated rates against the world's true chunk labels, and agree moderately", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "demo world", ...DEMO_WORLD });
    const solutions = await db.solution.findMany({
      where: { datasetId },
      orderBy: { externalId: "asc" },
      select: { externalId: true, problem: { select: { text: true } }, segmentations: { where: { method: "self-segmented" }, select: { chunks: { orderBy: { index: "asc" }, select: { text: true } } } } },
    });
    expect(solutions).toHaveLength(24);
    const truth: boolean[] = [];
    const ratings = DEMO_ANNOTATORS.map(() => [] as number[]);
    for (const solution of solutions) {
      const chunks = solution.segmentations[0]!.chunks.map((chunk) => chunk.text);
      const known = simWorldChunkTruth(solution.problem.text, chunks);
      expect(known, solution.externalId).not.toBeNull();
      truth.push(...known!);
      DEMO_ANNOTATORS.forEach((annotator, i) => ratings[i]!.push(...demoRatings(known!, annotator, solution.externalId)));
    }
    // The world has wrong chunks to find, and right ones.
    expect(truth.filter((right) => !right).length).toBeGreaterThan(truth.length / 10);
    expect(truth.filter((right) => right).length).toBeGreaterThan(truth.length / 2);
    DEMO_ANNOTATORS.forEach((annotator, i) => {
      const slips = ratings[i]!.filter((rating, unit) => (rating === 1) !== truth[unit]).length;
      const expected = truth.length * annotator.errorRate;
      // Within three standard deviations of the stated rate.
      expect(Math.abs(slips - expected), `${annotator.name}: ${slips} slips of ${truth.length}`).toBeLessThan(3 * Math.sqrt(expected * (1 - annotator.errorRate)));
    });
    const kappa = binaryKappa(ratings[0]!, ratings[1]!);
    expect(kappa, `Cohen's κ over ${truth.length} chunks`).toBeGreaterThan(0.4);
    expect(kappa).toBeLessThan(0.8);
  });
});

describe("the demo data of a first start, on the simulated cluster", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let queue: JobQueue;
  let worker: RunningWorker | undefined;
  let admin: SessionUser;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    // The endpoints the launcher registers for the simulated models the demo uses.
    for (const [model, role] of [["sim-policy", "policy"], ["sim-judge-weak", "judge"], ["sim-judge-strong", "judge"], ["sim-judge-medium", "judge"], ["sim-judge-correlated", "judge"]] as const) {
      await database.db.endpoint.create({ data: { name: model, model, role, baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    }
    await ensureAdminUser(database.db, { email: "admin@demo.test", password: "demo-admin-password" });
    admin = await database.db.user.findFirstOrThrow({ where: { role: "admin" }, select: { id: true, email: true, name: true, role: true } });
    queue = await connectJobQueue(database.url);
  });
  afterAll(async () => {
    await worker?.stop();
    await queue?.stop({ graceful: false, wait: true });
    await cluster?.stop();
    await database?.drop();
  });

  it("queues named, tagged runs once; a comparable benchmark pair, a judge pair and a queue with the demo annotators' labels follow", { timeout: 150_000 }, async () => {
    const { db } = database;
    const caller = createCallerFactory(appRouter)({ db, getQueue: () => Promise.resolve(queue), user: admin });

    expect(await seedDemoData(db, queue, { mode: "sim", simulated: true })).toHaveLength(1);
    // Once per database: a second start queues nothing.
    expect(await seedDemoData(db, queue, { mode: "sim", simulated: true })).toEqual([]);
    const dataset = await db.dataset.findFirstOrThrow({ where: { name: DEMO_DATASET_NAME }, select: { id: true } });
    expect(await db.dataset.count()).toBe(1);

    // Named, tagged runs with notes, as a researcher would name them.
    const runs = await db.run.findMany({ where: { datasetId: dataset.id }, orderBy: { createdAt: "asc" }, select: { id: true, kind: true, name: true, notes: true, tags: true, createdById: true } });
    expect(runs.map((run) => [run.kind, run.name])).toEqual([
      ["annotate", DEMO_RUNS.annotate.name],
      ["benchmark", "Demo benchmark: medium judge (sim-judge-medium), K=1"],
      ["benchmark", "Demo benchmark: correlated judge (sim-judge-correlated), K=1"],
      ["judge", "Demo: weak judge (sim-judge-weak), K=3"],
      ["judge", "Demo: strong judge (sim-judge-strong), K=3"],
    ]);
    for (const run of runs) {
      expect(run.tags).toContain("demo");
      expect(run.notes.length).toBeGreaterThan(20);
      // Made by the first admin, whom the Runs page names as their creator.
      expect(run.createdById).toBe(admin.id);
    }

    // Before the annotate run has finished, the queue step waits (here: until it is told to stop) and makes nothing.
    const early = new AbortController();
    const waiting = completeDemoQueue(db, { pollMs: 50, signal: early.signal });
    await new Promise((r) => setTimeout(r, 300));
    early.abort();
    expect(await waiting).toBeNull();
    expect(await db.annotationQueue.count()).toBe(0);

    worker = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: "demo-worker" } });
    const made = await completeDemoQueue(db, { pollMs: 100 });
    expect(made).toEqual({ queueId: expect.any(String), items: DEMO_QUEUE_ITEMS, submissions: DEMO_ANNOTATORS.length * DEMO_LABELLED_PER_ANNOTATOR });
    const queueId = made!.queueId;

    // The queue: the annotate run's least confident solutions, worked by the demo annotators.
    const shown = await caller.annotationQueue.queue({ queueId });
    expect(shown).toMatchObject({
      name: DEMO_QUEUE_NAME,
      annotateRunId: runs[0]!.id,
      judgeRunId: runs[4]!.id,
      selection: { kind: "least-confident", annotateRunId: runs[0]!.id, count: DEMO_QUEUE_ITEMS },
      progress: { items: DEMO_QUEUE_ITEMS, completedItems: DEMO_LABELLED_PER_ANNOTATOR, submissions: DEMO_ANNOTATORS.length * DEMO_LABELLED_PER_ANNOTATOR },
    });
    expect(shown.members.map((member) => member.email).sort()).toEqual(DEMO_ANNOTATORS.map((a) => a.email).sort());
    expect(shown.progress.annotators.map((a) => a.submitted)).toEqual([DEMO_LABELLED_PER_ANNOTATOR, DEMO_LABELLED_PER_ANNOTATOR]);
    const labels = await db.humanLabel.findMany({ where: { queueId, source: "annotation" }, select: { rating: true, author: { select: { email: true } } } });
    expect(labels.length).toBeGreaterThan(DEMO_ANNOTATORS.length * DEMO_LABELLED_PER_ANNOTATOR);
    expect(new Set(labels.map((label) => label.rating))).toContain(1);

    // The agreement panel has a pair to compare.
    const agreement = await caller.annotationQueue.agreement({ queueId });
    expect(agreement.cohen).toHaveLength(1);
    // Two careful people who sometimes slip: about 0.5–0.7 (Landis & Koch's moderate to low substantial), not chance and not lockstep.
    expect(agreement.cohen[0]!.kappa).toBeGreaterThan(0.4);
    expect(agreement.cohen[0]!.kappa).toBeLessThan(0.75);
    expect(agreement.fleiss?.items).toBeGreaterThan(0);
    // The queue page says how they were simulated.
    expect(agreement.simulatedAnnotators).toEqual(DEMO_ANNOTATORS.map((a) => ({ name: a.name, email: a.email, errorRate: a.errorRate })));
    // Each rating is the world's truth or a slip of it, at about the stated rates.
    const rated = await db.humanLabel.findMany({
      where: { queueId, source: "annotation" },
      select: { rating: true, author: { select: { email: true } }, chunk: { select: { index: true, text: true, segmentation: { select: { solution: { select: { externalId: true, problem: { select: { text: true } } } } } } } } },
    });
    const truthOf = new Map<string, boolean[]>();
    const slips = new Map<string, number>();
    for (const row of rated) {
      const solution = row.chunk.segmentation.solution;
      if (!truthOf.has(solution.externalId)) {
        const texts = await db.chunk.findMany({ where: { segmentation: { solution: { externalId: solution.externalId, datasetId: dataset.id } } }, orderBy: { index: "asc" }, select: { text: true } });
        truthOf.set(solution.externalId, simWorldChunkTruth(solution.problem.text, texts.map((c) => c.text))!);
      }
      const right = truthOf.get(solution.externalId)![row.chunk.index]!;
      expect([-1, 1]).toContain(row.rating);
      if ((row.rating === 1) !== right) slips.set(row.author.email, (slips.get(row.author.email) ?? 0) + 1);
    }
    // Over these few chunks the slips are few too; each annotator's are well under a third of what they rated.
    for (const annotator of DEMO_ANNOTATORS) expect(slips.get(annotator.email) ?? 0).toBeLessThan(rated.length / 2 / 3);
    expect(shown.blind).toBe(true);

    // The demo annotators exist to have written these labels: nobody can sign in as them.
    const annotators = await db.user.findMany({ where: { email: { in: DEMO_ANNOTATORS.map((a) => a.email) } }, select: { role: true, accounts: { select: { id: true } } } });
    expect(annotators).toHaveLength(DEMO_ANNOTATORS.length);
    for (const annotator of annotators) expect(annotator).toEqual({ role: "annotator", accounts: [] });

    // Run again (a restart), it does nothing more.
    expect(await completeDemoQueue(db, { pollMs: 100 })).toBeNull();
    expect(await db.annotationQueue.count()).toBe(1);
    expect(await db.humanLabel.count({ where: { queueId } })).toBe(labels.length);

    // The comparable pairs: the two benchmarks and the two judges, each on the same solutions, with F1 for each and
    // the second one's delta over the first (the baseline).
    for (const run of runs.slice(1)) {
      for (;;) {
        const { status } = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } });
        if (isTerminal(status)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const candidates = await caller.compare.candidates({ datasetId: dataset.id });
    expect(candidates.runs.map((run) => [run.id, run.status, run.solutions])).toEqual(
      [runs[4]!, runs[3]!, runs[2]!, runs[1]!].map((run) => [run.id, "completed", 24]),
    );
    for (const [baseline, other] of [
      [runs[1]!, runs[2]!],
      [runs[3]!, runs[4]!],
    ] as const) {
      const compared = await caller.compare.checkpoints({ runIds: [other.id, baseline.id], baselineRunId: baseline.id, resamples: 200 });
      expect(compared.gold).toBe(24);
      const [second, first] = compared.runs;
      expect(second!.bySubset.sim!.f1).toBeGreaterThanOrEqual(0);
      expect(second!.delta!.bySubset.sim!.f1.estimate).toBeCloseTo(second!.bySubset.sim!.f1 - first!.bySubset.sim!.f1, 10);
      expect(first!.delta).toBeNull();
    }
  });
});
