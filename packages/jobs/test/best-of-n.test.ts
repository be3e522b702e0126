import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { aggregateSolutionScore, bestOfNHandler, createSimWorldDataset, EndpointClients, executeRun, pickBest, RUN_HANDLERS } from "../src";
import { majorityPick } from "../src/pipelines/best-of-n/handler";

describe("best-of-N selection", () => {
  it("aggregates chunk scores by mean, min or last and picks the first best", () => {
    expect(aggregateSolutionScore([1, 0.5, 0], "mean")).toBe(0.5);
    expect(aggregateSolutionScore([1, 0.5, 0.25], "min")).toBe(0.25);
    expect(aggregateSolutionScore([1, 0.5, 0.25], "last")).toBe(0.25);
    expect(pickBest([0.2, 0.9, 0.9, 0.1])).toBe(1);
  });

  it("the majority vote groups final answers by the grader's equivalence; missing answers never win", () => {
    expect(majorityPick(["0.6", "0.6", "0.5", String.raw`\frac{1}{2}`, "1/2"])).toBe(2);
    expect(majorityPick([null, null, "7"])).toBe(2);
    expect(majorityPick([null, ""])).toBeNull();
  });

  describe("on the simulated world", () => {
    let database: TestDatabase;
    let cluster: SimCluster;
    let endpoints: EndpointClients;
    beforeAll(async () => {
      database = await createTestDatabase(inject("postgresAdminUrl"));
      cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
      await database.db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
      endpoints = new EndpointClients();
    });
    afterAll(async () => {
      await endpoints?.close();
      await cluster?.stop();
      await database?.drop();
    });

    it("a strong judge's pick beats a random pick; every chunk of every solution is judged once", async () => {
      const { db } = database;
      const { datasetId } = await createSimWorldDataset(db, { name: "bon", problems: 40, solutionsPerProblem: 6, seed: 300, errorRate: 0.25 });
      const config = bestOfNHandler.configSchema.parse({ datasetId, judgeEndpoint: "judge", seed: 1 });
      const run = await db.run.create({ data: { kind: "best_of_n", config: (await bestOfNHandler.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(done.status).toBe("completed");
      const chunks = await db.chunk.count({ where: { segmentation: { trajectory: { datasetId } } } });
      expect(await db.judgeSample.count({ where: { runId: run.id } })).toBe(chunks);
      const summary = done.summary as { problems: number; accuracy: Record<string, number> };
      expect(summary.problems).toBe(40);
      expect(summary.accuracy.mean).toBeGreaterThan(summary.accuracy.random!);
      expect(summary.accuracy.mean).toBeLessThanOrEqual(summary.accuracy.oracle!);
    });

    it("the majority-vote baseline counts 0.5, \\frac{1}{2} and 1/2 as one answer, and a missing answer never wins", async () => {
      const { db } = database;
      const dataset = await db.dataset.create({ data: { name: "votes", source: "test", status: "ready" } });
      // Per problem, the solutions' final answers (in externalId order) and whether each is right.
      const problems = [
        { reference: "1/2", answers: [["0.6", false], ["0.6", false], ["0.5", true], [String.raw`\frac{1}{2}`, true], ["1/2", true]] },
        { reference: "7", answers: [[null, false], [null, false], ["7", true]] },
      ] as const;
      for (const [p, problem] of problems.entries()) {
        const row = await db.problem.create({ data: { datasetId: dataset.id, textHash: `votes-${p}`, text: `problem ${p}`, referenceAnswer: problem.reference } });
        for (const [i, [answer, correct]] of problem.answers.entries()) {
          const trajectory = await db.trajectory.create({
            data: { datasetId: dataset.id, problemId: row.id, externalId: `p${p}-s${i}`, generator: "test", text: answer === null ? "no answer" : String.raw`\boxed{${answer}}`, finalAnswer: answer, finalAnswerCorrect: correct },
          });
          await db.segmentation.create({ data: { trajectoryId: trajectory.id, method: "self-segmented" } });
        }
      }
      const config = bestOfNHandler.configSchema.parse({ datasetId: dataset.id, judgeEndpoint: "judge" });
      const run = await db.run.create({ data: { kind: "best_of_n", config: config as object, datasetId: dataset.id } });
      const ctx = { db, runId: run.id, config, signal: new AbortController().signal, endpoints, recordUsage() {}, log() {} };
      const summary = (await bestOfNHandler.summarize!(ctx)) as { problems: number; accuracy: Record<string, number> };
      expect(summary.problems).toBe(2);
      // Raw strings would have elected 0.6 (two votes against one each) and the missing answer: 0 of 2.
      expect(summary.accuracy.majority).toBe(1);
      expect(summary.accuracy.oracle).toBe(1);
    });
  });
});
