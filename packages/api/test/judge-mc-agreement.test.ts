import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "@stepwiser/jobs";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory } from "../src";

const MIGRATION = "20261204021832_judge_mc_agreement";

/**
 * A judge run's agreement with Monte-Carlo labels, stored when it finishes: real
 * annotate and judge runs on a small simulated world, the stored figure recomputed
 * here from the judge's samples and the labels, equal to the accuracy the judge
 * run's results give for the same reference, listed and sorted by the runs list,
 * and equal to what the migration's backfill computes for the same runs.
 */
describe("a judge run's stored agreement with Monte-Carlo labels", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    for (const [name, role] of [["sim-policy", "policy"], ["sim-judge-weak", "judge"]] as const) {
      await database.db.endpoint.create({ data: { name, model: name, role, baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    }
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("is measured against the latest annotate run under its first rule, equals a recount and the results page's accuracy, and the backfill's", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "agreement", problems: 3, seed: 41, errorRate: 0.5 });
    const launch = async (kind: "annotate" | "judge", config: object) => (await createAndExecuteRun(db, { kind, config: { datasetId, ...config } }, { endpoints })).id;
    const judge = { judgeEndpoint: "sim-judge-weak", temperature: 1 };

    // Before any annotate run there is nothing to agree with.
    const alone = await launch("judge", { ...judge, samples: 1, seed: 1 });
    // An earlier annotate run under the default rules (Abs-Q first): not the reference once a later one has finished.
    await launch("annotate", { policyEndpoint: "sim-policy", rollouts: 2, seed: 2 });
    // The later annotate run, whose first rule (Rel-Ratio) is not the first the table holds (Abs-Q).
    const newer = await launch("annotate", { policyEndpoint: "sim-policy", rollouts: 2, seed: 3, labelRules: [{ rule: "rel-ratio", gamma: 0.7 }, { rule: "abs-q" }] });
    // Two samples at temperature 1 tie on some chunks: the run's tie policy (Positive) decides those.
    const judged = await launch("judge", { ...judge, samples: 2, seed: 5, tiePolicy: "Positive" });

    const stored = await db.run.findMany({ where: { id: { in: [alone, judged] } }, select: { id: true, status: true, mcAgreement: true, mcAgreementRunId: true } });
    const byId = new Map(stored.map((run) => [run.id, run]));
    expect(byId.get(alone)).toMatchObject({ status: "completed", mcAgreement: null, mcAgreementRunId: null });
    const run = byId.get(judged)!;
    expect(run).toMatchObject({ status: "completed", mcAgreementRunId: newer });

    // Recounted here: each chunk's majority of its samples (a tie Positive, no readable vote unparseable) against the later run's Rel-Ratio label.
    const samples = await db.judgeSample.findMany({ where: { runId: judged }, select: { chunkId: true, verdict: true } });
    const votes = new Map<string, string[]>();
    for (const sample of samples) votes.set(sample.chunkId, [...(votes.get(sample.chunkId) ?? []), sample.verdict]);
    const labels = await db.chunkLabel.findMany({ where: { runId: newer, rule: "rel_ratio", paramsKey: '{"gamma":0.7}' }, select: { chunkId: true, label: true } });
    let pairs = 0;
    let agreeing = 0;
    let ties = 0;
    for (const { chunkId, label } of labels) {
      const mine = votes.get(chunkId);
      if (!mine) continue;
      const positive = mine.filter((v) => v === "Positive").length;
      const negative = mine.filter((v) => v === "Negative").length;
      if (positive === negative && positive > 0) ties += 1;
      const verdict = positive + negative === 0 ? "unparseable" : positive >= negative ? "Positive" : "Negative";
      pairs += 1;
      if (verdict === label) agreeing += 1;
    }
    expect(pairs).toBe(votes.size);
    expect(ties).toBeGreaterThan(0);
    expect(run.mcAgreement).toBe(agreeing / pairs);

    // The judge run's results: the accuracy against the same annotate run under its first rule is the stored figure.
    const caller = createCallerFactory(appRouter)({ db, getQueue: () => Promise.reject(new Error("no queue in this test")), user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
    const results = await caller.run.results({ id: judged });
    if (results.kind !== "judge") throw new Error(`expected a judge result, got ${results.kind}`);
    const reference = results.agreements.find((a) => a.reference.kind === "annotate" && a.reference.runId === newer && a.reference.rule === "rel_ratio");
    expect(reference?.chunks).toBe(pairs);
    expect(reference?.accuracy).toBe(run.mcAgreement);

    // The runs list: the figure with the annotate run and rule it is over, sorted with the runs that have none last.
    const listed = await caller.run.list({ sort: "mcAgreement", order: "asc", kinds: ["judge"] });
    expect(listed.runs.map((r) => r.id)).toEqual([judged, alone]);
    const newerName = (await db.run.findUniqueOrThrow({ where: { id: newer }, select: { name: true } })).name;
    expect(listed.runs[0]!.results.mcAgreement).toEqual({ value: run.mcAgreement, run: { id: newer, name: newerName }, rule: "rel-ratio(gamma=0.7)" });
    expect(listed.runs[1]!.results.mcAgreement).toBeNull();

    // The migration's backfill, run again on these runs, gives the same figure and reference.
    const sql = readFileSync(path.resolve(import.meta.dirname, "../../../prisma/migrations", MIGRATION, "migration.sql"), "utf8");
    const backfill = sql.slice(sql.indexOf("WITH judge AS"));
    await db.run.updateMany({ where: { id: { in: [alone, judged] } }, data: { mcAgreement: null, mcAgreementRunId: null } });
    await db.$executeRawUnsafe(backfill);
    const again = await db.run.findMany({ where: { id: { in: [alone, judged] } }, select: { id: true, mcAgreement: true, mcAgreementRunId: true }, orderBy: { id: "asc" } });
    expect(again).toEqual(stored.map(({ id, mcAgreement, mcAgreementRunId }) => ({ id, mcAgreement, mcAgreementRunId })).sort((a, b) => (a.id < b.id ? -1 : 1)));
  });
});
