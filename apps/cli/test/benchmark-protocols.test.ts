import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { atScale } from "@stepwiser/config/test-scale";
import { judgeProtocolRef, type JudgeProtocolId } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot, runCli } from "./run-cli";

const demoDir = path.join(repoRoot, "packages/db/seed/processbench");
/** gsm8k solutions each protocol's run judges: enough for every protocol's evidence to show; 24 at full scale. */
const SOLUTIONS = atScale({ default: 8, full: 24 });

/**
 * A ProcessBench benchmark run per judge protocol, over HTTP against the simulated
 * cluster's model of each family: the run's scores equal `processbench score` on the
 * predictions it exports, and its evidence is stored the protocol's way.
 */
describe("benchmark runs speak every stepwise judge protocol", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  let slice: string;
  let datasetId: string;
  const endpoints = [
    { name: "sim-thinkprm", protocols: ["thinkprm"] },
    { name: "sim-genprm", protocols: ["genprm"] },
    { name: "sim-math-prm", protocols: ["discriminative-prm"] },
    { name: "sim-judge-strong", protocols: ["stepwiser-chunk", "processbench-critic"] },
  ];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    for (const { name, protocols } of endpoints) {
      await database.db.endpoint.create({ data: { name, model: name, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols } });
    }
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-bench-protocols-"));
    const records = JSON.parse(await readFile(path.join(demoDir, "gsm8k.json"), "utf8")) as unknown[];
    slice = path.join(scratch, "gsm8k.json");
    await writeFile(slice, JSON.stringify(records.slice(0, SOLUTIONS)));
    const imported = await runCliInProcess(["import", "processbench", slice], { DATABASE_URL: database.url });
    expect(imported.code, imported.stderr).toBe(0);
    datasetId = (jsonOf(imported) as { runs: Array<{ datasetId: string }> }).runs[0]!.datasetId;
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const cases = [
    { protocol: "thinkprm", judge: "sim-thinkprm", extra: { temperature: 0 } },
    { protocol: "genprm", judge: "sim-genprm", extra: { temperature: 0.6, maxTokens: 2048 } },
    { protocol: "discriminative-prm", judge: "sim-math-prm", extra: { protocolOptions: { threshold: 0.5 } } },
    // The critic votes over K = 4 samples at temperature 1, as ProcessBench's --use_voting does with 8.
    { protocol: "processbench-critic", judge: "sim-judge-strong", extra: { samples: 4, temperature: 1 } },
    { protocol: "stepwiser-chunk", judge: "sim-judge-strong", extra: {} },
  ];

  it.each(cases)("$protocol: F1 equals processbench score on the exported predictions", async ({ protocol, judge, extra }) => {
    const env = { DATABASE_URL: database.url };
    const config = path.join(scratch, `${protocol}.json`);
    await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: judge, protocol, bootstrap: { resamples: 200 }, ...extra }));
    const result = await runCliInProcess(["run", "benchmark", "--config", config], env);
    expect(result.code, result.stderr).toBe(0);
    const run = jsonOf(result) as { runId: string; status: string; summary: { protocol: string; subsets: Record<string, { f1: number; acc_err: number; acc_cor: number; n: number }>; unparseable: number } };
    expect(run.status).toBe("completed");
    expect(run.summary.protocol).toBe(judgeProtocolRef(protocol as JudgeProtocolId));
    const exported = await runCliInProcess(["run", "predictions", run.runId], env);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split("\n");
    expect(lines).toHaveLength(SOLUTIONS);
    const predictions = path.join(scratch, `${protocol}.jsonl`);
    await writeFile(predictions, lines.join("\n"));
    const scored = await runCliInProcess(["processbench", "score", "--data", slice, "--predictions", predictions]);
    expect(scored.code, scored.stderr).toBe(0);
    const cli = jsonOf(scored) as { subsets: typeof run.summary.subsets };
    expect(cli.subsets.gsm8k).toMatchObject({ n: SOLUTIONS, f1: run.summary.subsets.gsm8k!.f1, acc_err: run.summary.subsets.gsm8k!.acc_err, acc_cor: run.summary.subsets.gsm8k!.acc_cor });
    // Real ProcessBench text is not the simulated world's, so the simulated judges read it by
    // their arithmetic check: the score says nothing of a real checkpoint, but every answer is read.
    expect(run.summary.unparseable).toBeLessThan(SOLUTIONS);

    const db = database.db;
    const samples = await db.judgeSample.findMany({ where: { runId: run.runId }, select: { promptTemplateId: true, score: true, verdict: true, rationale: true } });
    const prediction = await db.solutionPrediction.findMany({ where: { runId: run.runId }, select: { score: true, samples: true, output: true } });
    if (protocol === "thinkprm") {
      expect(samples.length).toBeGreaterThan(SOLUTIONS);
      expect(samples.every((s) => s.promptTemplateId === "thinkprm@v2" && /\\boxed\{(in)?correct\}/.test(s.rationale))).toBe(true);
      // The solution's score is P(yes) read from the decision token's log-probabilities.
      expect(prediction.every((p) => p.score !== null && p.score > 0 && p.score < 1)).toBe(true);
      expect(prediction.every((p) => Array.isArray(p.samples))).toBe(true);
    }
    if (protocol === "genprm") {
      expect(samples.every((s) => s.rationale.startsWith("<analyze>") && s.rationale.endsWith("</output>\n"))).toBe(true);
      expect(samples.filter((s) => s.verdict !== "unparseable").every((s) => s.score !== null && s.score > 0 && s.score < 1)).toBe(true);
    }
    if (protocol === "discriminative-prm") {
      expect(samples.every((s) => s.score !== null && (s.verdict === "Positive") === s.score >= 0.5)).toBe(true);
    }
    if (protocol === "processbench-critic") {
      expect(prediction.every((p) => p.output !== null && Array.isArray(p.samples) && p.samples.length === 4)).toBe(true);
      // Each `run predictions` line carries the sample's votes: the parsed index, or null.
      for (const line of lines.map((l) => JSON.parse(l) as { prediction: number | null; votes: Array<number | null> })) {
        expect(line.votes).toHaveLength(4);
        expect(line.votes.every((vote) => vote === null || Number.isInteger(vote))).toBe(true);
        if (line.prediction !== null) expect(line.votes).toContain(line.prediction);
      }
    } else {
      for (const line of lines) expect(JSON.parse(line)).not.toHaveProperty("votes");
    }
  }, 180_000);

  it("refuses a run whose protocol the judge endpoint does not speak, naming the field", async () => {
    const config = path.join(scratch, "refused.json");
    await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: "sim-math-prm", protocol: "thinkprm" }));
    // As the executable: the refusal is a failing exit and one message on stderr, as a shell sees it.
    const result = await runCli(["run", "benchmark", "--config", config], { env: { DATABASE_URL: database.url } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/judgeEndpoint/);
    expect(result.stderr).toMatch(/does not speak thinkprm@v2; it declares discriminative-prm/);
  });

  it("refuses an outcome protocol for a benchmark, naming the field", async () => {
    const config = path.join(scratch, "outcome.json");
    await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: "sim-judge-strong", protocol: "outcome-pointwise" }));
    const result = await runCliInProcess(["run", "benchmark", "--config", config], { DATABASE_URL: database.url });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/protocol/);
    expect(result.stderr).toMatch(/gives no verdict per step/);
  });
});
