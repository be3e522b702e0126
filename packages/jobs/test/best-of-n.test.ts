import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { aggregateSolutionScore, bestOfNKind, createSimWorldDataset, EndpointClients, executeRun, pickBest, UNIT_RUN_KINDS } from "../src";
import { majorityPick } from "../src/kinds/best-of-n/kind";

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
      await database.db.endpoint.create({ data: { name: "outcome-rm", model: "sim-outcome-rm", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols: ["outcome-pointwise", "outcome-pairwise"] } });
      await database.db.endpoint.create({ data: { name: "math-prm", model: "sim-math-prm", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols: ["discriminative-prm"] } });
      await database.db.endpoint.create({ data: { name: "thinkprm", model: "sim-thinkprm", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols: ["thinkprm"] } });
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
      const config = bestOfNKind.submitSchema.parse({ datasetId, judgeEndpoint: "judge", seed: 1 });
      const run = await db.run.create({ data: { kind: "best_of_n", config: (await bestOfNKind.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(done.status).toBe("completed");
      const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
      expect(await db.judgeSample.count({ where: { runId: run.id } })).toBe(chunks);
      const summary = done.summary as { problems: number; accuracy: Record<string, number> };
      expect(summary.problems).toBe(40);
      expect(summary.accuracy.mean).toBeGreaterThan(summary.accuracy.random!);
      expect(summary.accuracy.mean).toBeLessThanOrEqual(summary.accuracy.oracle!);
    });

    it("outcome-pairwise: a knockout bracket per problem is stored, every match with its votes, and its winner is the pick", async () => {
      const { db } = database;
      const { datasetId } = await createSimWorldDataset(db, { name: "bon-pairwise", problems: 12, solutionsPerProblem: 5, seed: 301, errorRate: 0.35 });
      const config = bestOfNKind.submitSchema.parse({ datasetId, judgeEndpoint: "outcome-rm", protocol: "outcome-pairwise", samples: 3, temperature: 1, seed: 2 });
      const run = await db.run.create({ data: { kind: "best_of_n", config: (await bestOfNKind.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(done.status).toBe("completed");
      const brackets = await db.selectionBracket.findMany({ where: { runId: run.id } });
      expect(brackets).toHaveLength(12);
      for (const row of brackets) {
        const bracket = row.bracket as { candidateCount: number; candidates: string[]; winner: number; rounds: Array<{ matches: Array<{ candidates: [number, number]; winner: number; votes: { first: number; second: number; unparseable: number } }>; bye: number | null }> };
        expect(bracket.candidateCount).toBe(5);
        // Five candidates: rounds of 2 matches + a bye, 1 match + a bye, 1 match: n - 1 = 4 matches.
        expect(bracket.rounds.map((r) => [r.matches.length, r.bye !== null])).toEqual([[2, true], [1, true], [1, false]]);
        for (const match of bracket.rounds.flatMap((r) => r.matches)) {
          expect(match.votes.first + match.votes.second + match.votes.unparseable).toBe(3);
          expect(match.candidates).toContain(match.winner);
        }
        expect(row.winnerSolutionId).toBe(bracket.candidates[bracket.winner]);
      }
      const summary = done.summary as { protocol: string; selections: string[]; problems: number; accuracy: Record<string, number> };
      expect(summary.protocol).toBe("outcome-pairwise@v1");
      expect(summary.selections).toEqual(["tournament"]);
      expect(summary.accuracy.tournament).toBeGreaterThan(summary.accuracy.random!);
    });

    it("outcome-pointwise, discriminative-prm and thinkprm pick by their own scores, each better than random", async () => {
      const { db } = database;
      const { datasetId } = await createSimWorldDataset(db, { name: "bon-scores", problems: 20, solutionsPerProblem: 5, seed: 302, errorRate: 0.35 });
      const cases = [
        { judgeEndpoint: "outcome-rm", protocol: "outcome-pointwise", selection: "solution" },
        { judgeEndpoint: "math-prm", protocol: "discriminative-prm", selection: "min" },
        { judgeEndpoint: "thinkprm", protocol: "thinkprm", selection: "solution" },
      ];
      for (const { judgeEndpoint, protocol, selection } of cases) {
        const config = bestOfNKind.submitSchema.parse({ datasetId, judgeEndpoint, protocol, seed: 3 });
        const run = await db.run.create({ data: { kind: "best_of_n", config: (await bestOfNKind.snapshot(db, config)) as object, datasetId } });
        await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
        const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
        expect(done.status, protocol).toBe("completed");
        const summary = done.summary as { selections: string[]; accuracy: Record<string, number> };
        expect(summary.selections, protocol).toContain(selection);
        expect(summary.accuracy[selection], protocol).toBeGreaterThan(summary.accuracy.random!);
        if (protocol !== "discriminative-prm") expect(await db.solutionPrediction.count({ where: { runId: run.id, score: { not: null } } }), protocol).toBe(100);
        else expect(await db.judgeSample.count({ where: { runId: run.id, score: null } })).toBe(0);
      }
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
          const solution = await db.solution.create({
            data: { datasetId: dataset.id, problemId: row.id, externalId: `p${p}-s${i}`, generator: "test", text: answer === null ? "no answer" : String.raw`\boxed{${answer}}`, finalAnswer: answer, finalAnswerCorrect: correct },
          });
          await db.segmentation.create({ data: { solutionId: solution.id, method: "self-segmented" } });
        }
      }
      const config = bestOfNKind.submitSchema.parse({ datasetId: dataset.id, judgeEndpoint: "judge" });
      const run = await db.run.create({ data: { kind: "best_of_n", config: config as object, datasetId: dataset.id } });
      const ctx = { db, runId: run.id, config, signal: new AbortController().signal, endpoints, recordUsage() {}, log() {} };
      const summary = (await bestOfNKind.summarize!(ctx)) as { problems: number; accuracy: Record<string, number> };
      expect(summary.problems).toBe(2);
      // Raw strings would have elected 0.6 (two votes against one each) and the missing answer: 0 of 2.
      expect(summary.accuracy.majority).toBe(1);
      expect(summary.accuracy.oracle).toBe(1);
    });
  });
});
