import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimWorldDataset, planAnnotateRun } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";

describe("a run's estimate and check before launch (run.plan, run.validate)", () => {
  let database: TestDatabase;
  let datasetId: string;
  let researcherId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    await database.db.endpoint.createMany({
      data: [
        { name: "policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], promptPricePerMTokens: 1, completionPricePerMTokens: 4 },
        { name: "judge", model: "sim-judge", role: "judge", baseUrls: ["http://127.0.0.1:9/v1"], protocols: ["stepwiser-chunk", "processbench-critic"] },
      ],
    });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "plan", problems: 3 }));
    ({ id: researcherId } = await createUserWithPassword(database.db, { email: "r@example.test", name: "R", role: "researcher", password: "long-enough-password" }));
  });
  afterAll(async () => {
    await database?.drop();
  });

  const caller = () =>
    createCallerFactory(appRouter)({
      db: database.db,
      getQueue: () => Promise.reject(new Error("a check queues nothing")),
      user: { id: researcherId, email: "r@example.test", name: "R", role: "researcher" },
    });

  it("plans an annotate run exactly as `stepwiser plan annotate` does, with hours only at a given rate and cost at the endpoint's prices", async () => {
    const config = { datasetId, policyEndpoint: "policy", rollouts: 4 };
    const planned = await planAnnotateRun(database.db, config, { tokensPerSecond: 500 });
    const plan = await caller().run.plan({ kind: "annotate", config });
    expect(plan).toMatchObject({ available: true, model: "annotate-planner", requests: planned.estimate.requests, rollouts: planned.estimate.rollouts, hours: null, throughput: { measured: null } });
    if (!plan.available) throw new Error(plan.reason);
    expect(plan.requests).toBeGreaterThan(0);
    expect(plan.costUsd).toBeCloseTo((planned.estimate.promptTokens * 1 + planned.estimate.generatedTokens * 4) / 1e6, 6);
    expect(plan.storage.totalBytes).toBe(planned.storage.totalBytes);
    expect(await caller().run.plan({ kind: "annotate", config, tokensPerSecond: 500 })).toMatchObject({ hours: planned.estimate.hours, throughput: { source: "typed", tokensPerSecond: 500 } });
  });

  it("without a typed rate, times the run at the endpoint's rate measured over its latest finished runs that used it alone", async () => {
    const config = { datasetId, policyEndpoint: "policy", rollouts: 4 };
    const finished = (minutesAgo: number, seconds: number, completionTokens: number, extra: object = {}) => {
      const finishedAt = new Date(Date.now() - minutesAgo * 60_000);
      return { kind: "annotate", status: "completed" as const, datasetId, config: { policyEndpoint: "policy", ...extra }, completionTokens, startedAt: new Date(finishedAt.getTime() - seconds * 1000), finishedAt };
    };
    await database.db.run.createMany({
      data: [
        finished(1, 100, 30_000),
        finished(2, 50, 10_000),
        // A failed run, another endpoint's run and a judge run naming the policy in another field do not count.
        { ...finished(3, 10, 1_000_000), status: "failed" as const },
        finished(4, 10, 1_000_000, { policyEndpoint: "elsewhere" }),
        { ...finished(5, 10, 1_000_000), kind: "judge" },
      ],
    });
    const plan = await caller().run.plan({ kind: "annotate", config });
    if (!plan.available) throw new Error(plan.reason);
    // 40,000 tokens over 150 s of wall time.
    expect(plan.throughput).toMatchObject({ source: "measured", tokensPerSecond: 267, measured: { tokensPerSecond: 267 } });
    expect(plan.throughput.measured!.runIds).toHaveLength(2);
    expect(plan.hours).toBe((await planAnnotateRun(database.db, config, { tokensPerSecond: 267 })).estimate.hours);
    // A typed figure wins over the measured one.
    expect(await caller().run.plan({ kind: "annotate", config, tokensPerSecond: 500 })).toMatchObject({ throughput: { source: "typed", tokensPerSecond: 500, measured: { tokensPerSecond: 267 } } });
    await database.db.run.deleteMany({ where: { status: { in: ["completed", "failed"] } } });
  });

  it("estimates a judge run as chunks × samples, a per-solution protocol as solutions × samples, tokens at maxTokens at most", async () => {
    const chunks = await database.db.chunk.count({ where: { segmentation: { method: "self-segmented", solution: { datasetId } } } });
    const solutions = await database.db.segmentation.count({ where: { method: "self-segmented", solution: { datasetId } } });
    const judge = await caller().run.plan({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", samples: 3, temperature: 1, maxTokens: 100 } });
    expect(judge).toMatchObject({ available: true, model: "judge-simple", solutions, chunks, requests: chunks * 3, generatedTokens: chunks * 3 * 100, upperBound: true, costUsd: null });
    const critic = await caller().run.plan({ kind: "benchmark", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", protocol: "processbench-critic", samples: 2, temperature: 1, maxTokens: 50 } });
    expect(critic).toMatchObject({ available: true, requests: solutions * 2, generatedTokens: solutions * 2 * 50 });
    if (critic.available) expect(critic.assumptions[0]).toMatch(/^requests: solutions × samples \(K = 2\)/);
    // A configuration that does not read yet, and a kind without a model, say why instead of failing.
    expect(await caller().run.plan({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", samples: 0 } })).toMatchObject({ available: false, reason: expect.stringContaining('field "samples"') });
    expect(await caller().run.plan({ kind: "segment", config: { datasetId, method: "blank-line" } })).toEqual({ available: false, kind: "segment", reason: "no estimate for this kind" });
  });

  it("checks a launch as run.launch would, naming the field, and stores nothing", async () => {
    const before = await database.db.run.count();
    expect(await caller().run.validate({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented" } })).toEqual({ valid: true });
    expect(await caller().run.validate({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", samples: 0 } })).toMatchObject({ valid: false, field: "samples" });
    const mismatch = await caller().run.validate({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", protocol: "thinkprm" } });
    expect(mismatch).toMatchObject({ valid: false, field: "judgeEndpoint", message: expect.stringContaining("does not speak thinkprm") });
    expect(await caller().run.validate({ kind: "judge", config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "blank-line" } })).toMatchObject({ valid: false, field: "segmentationMethod" });
    expect(await caller().run.validate({ kind: "segment", config: { datasetId, method: "blank-line" }, offline: true })).toMatchObject({ valid: false, field: null, message: expect.stringContaining("offline execution supports") });
    expect(await database.db.run.count()).toBe(before);
  });
});
