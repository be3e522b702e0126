import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { atScale } from "@stepwiser/config/test-scale";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot } from "./run-cli";

const demoDir = path.join(repoRoot, "packages/db/seed/processbench");
/** Solutions of each shipped subset the runs judge: the equality holds on any slice, so a few suffice; 40 at full scale. */
const SLICE = atScale({ default: 10, full: 40 });

describe("benchmark runs on ProcessBench", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  const slices: string[] = [];
  const datasetIds: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    for (const model of ["arith-checker", "sim-judge-strong", "sim-judge-weak"]) {
      await database.db.endpoint.create({ data: { name: model, model, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    }
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-bench-run-"));
    // A slice of each shipped subset keeps the test quick; the benchmark runs the whole files.
    for (const subset of ["gsm8k", "math"]) {
      const records = JSON.parse(await readFile(path.join(demoDir, `${subset}.json`), "utf8")) as unknown[];
      const file = path.join(scratch, `${subset}.json`);
      await writeFile(file, JSON.stringify(records.slice(0, SLICE)));
      slices.push(file);
      const imported = await runCliInProcess(["import", "processbench", file], { DATABASE_URL: database.url });
      expect(imported.code, imported.stderr).toBe(0);
      datasetIds.push((jsonOf(imported) as { runs: Array<{ datasetId: string }> }).runs[0]!.datasetId);
    }
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it.each(["arith-checker", "sim-judge-strong", "sim-judge-weak"])("%s: the run's per-subset F1 equals processbench score on its exported predictions", async (judge) => {
    const env = { DATABASE_URL: database.url };
    const scores: Record<string, { f1: number; acc_err: number; acc_cor: number; n: number }> = {};
    const predictionLines: string[] = [];
    for (const datasetId of datasetIds) {
      const config = path.join(scratch, `${judge}-${datasetId}.json`);
      await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: judge, mode: "chunk-judge", bootstrap: { resamples: 200 } }));
      const result = await runCliInProcess(["run", "benchmark", "--config", config], env);
      expect(result.code, result.stderr).toBe(0);
      const run = jsonOf(result) as { runId: string; status: string; summary: { subsets: typeof scores; f1_ci95: Record<string, { lower: number; upper: number }> } };
      expect(run.status).toBe("completed");
      Object.assign(scores, run.summary.subsets);
      for (const [subset, ci] of Object.entries(run.summary.f1_ci95)) {
        expect(ci.lower).toBeLessThanOrEqual(run.summary.subsets[subset]!.f1);
        expect(ci.upper).toBeGreaterThanOrEqual(run.summary.subsets[subset]!.f1);
      }
      const exported = await runCliInProcess(["run", "predictions", run.runId], env);
      expect(exported.code, exported.stderr).toBe(0);
      predictionLines.push(...exported.stdout.trim().split("\n"));
    }
    expect(predictionLines).toHaveLength(2 * SLICE);
    const predictions = path.join(scratch, `${judge}.jsonl`);
    await writeFile(predictions, predictionLines.join("\n"));
    const scored = await runCliInProcess(["processbench", "score", "--data", ...slices, "--predictions", predictions]);
    expect(scored.code, scored.stderr).toBe(0);
    const cli = jsonOf(scored) as { subsets: typeof scores };
    for (const subset of ["gsm8k", "math"]) {
      expect(cli.subsets[subset]).toMatchObject({ n: scores[subset]!.n, f1: scores[subset]!.f1, acc_err: scores[subset]!.acc_err, acc_cor: scores[subset]!.acc_cor });
    }
  }, 120_000);
});
