import { appRouter, createCallerFactory, ensureAdminUser, type SessionUser } from "@stepwiser/api";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, isTerminal, startWorker, type JobQueue, type RunningWorker } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  completeDemoQueue,
  DEMO_ANNOTATORS,
  DEMO_DATASET_NAME,
  DEMO_LABELLED_PER_ANNOTATOR,
  DEMO_QUEUE_ITEMS,
  DEMO_QUEUE_NAME,
  DEMO_RUNS,
  demoModeOf,
  demoRatings,
  seedDemoData,
} from "../src/demo-data";

describe("demo annotators' ratings", () => {
  it("agree on the steps before the first error and on the error itself, and differ after it and just before it", () => {
    expect(demoRatings(5, 2, "strict")).toEqual([1, 1, -1, -1, -1]);
    expect(demoRatings(5, 2, "lenient")).toEqual([1, 0, -1, 0, 0]);
    expect(demoRatings(3, -1, "strict")).toEqual([1, 1, 1]);
    expect(demoRatings(3, -1, "lenient")).toEqual([1, 1, 1]);
    expect(demoRatings(3, 0, "lenient")).toEqual([-1, 0, 0]);
  });

  it("reads STEPWISER_DEMO_DATA, refusing what it does not know", () => {
    expect(demoModeOf(undefined)).toBe("1");
    expect(demoModeOf("sim")).toBe("sim");
    expect(() => demoModeOf("yes")).toThrow(/STEPWISER_DEMO_DATA must be 1, sim or 0 \(got "yes"\)/);
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
    const runs = await db.run.findMany({ where: { datasetId: dataset.id }, orderBy: { createdAt: "asc" }, select: { id: true, kind: true, name: true, notes: true, tags: true } });
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
    expect(agreement.cohen[0]!.kappa).toBeGreaterThanOrEqual(-1);
    expect(agreement.cohen[0]!.kappa).toBeLessThanOrEqual(1);
    expect(agreement.fleiss?.items).toBeGreaterThan(0);

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
