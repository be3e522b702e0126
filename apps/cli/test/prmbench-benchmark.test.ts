import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot } from "./run-cli";

const fixture = path.join(repoRoot, "packages/core/test/fixtures/prmbench/prmbench-sample.jsonl");

interface Figures {
  prmscore: number;
  f1: number;
  negative_f1: number;
  n: number;
}

/**
 * A benchmark run per step-level protocol on an imported PRMBench sample, over HTTP against the
 * simulated cluster: every step is judged, and the run's PRMBench scores equal `prmbench score`
 * on the data file and the predictions the run exports.
 */
describe("benchmark runs on PRMBench", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  let slice: string;
  let datasetId: string;
  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    for (const [name, protocols] of [["sim-thinkprm", ["thinkprm"]], ["sim-genprm", ["genprm"]], ["sim-math-prm", ["discriminative-prm"]], ["sim-judge-strong", ["stepwiser-chunk", "processbench-critic"]]] as const) {
      await database.db.endpoint.create({ data: { name, model: name, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64, protocols: [...protocols] } });
    }
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-prmbench-bench-"));
    // The records of one source problem in every class (the redundancy one gives its all-correct item), and a class without error steps.
    const lines = (await readFile(fixture, "utf8")).trim().split("\n");
    const picked = lines.filter((line) => (JSON.parse(line) as { idx: string }).idx === "prm_test_p1_0" || line === lines[24]);
    slice = path.join(scratch, "prmbench.jsonl");
    await writeFile(slice, `${picked.join("\n")}\n`);
    const imported = await runCliInProcess(["import", "prmbench", slice, "--name", "PRMBench sample"], env());
    expect(imported.code, imported.stderr).toBe(0);
    datasetId = (jsonOf(imported) as { runs: Array<{ datasetId: string }> }).runs[0]!.datasetId;
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const cases = [
    { protocol: "stepwiser-chunk", judge: "sim-judge-strong", extra: {} },
    { protocol: "thinkprm", judge: "sim-thinkprm", extra: { temperature: 0 } },
    { protocol: "genprm", judge: "sim-genprm", extra: { temperature: 0.6, maxTokens: 2048 } },
    { protocol: "discriminative-prm", judge: "sim-math-prm", extra: { protocolOptions: { threshold: 0.5 } } },
    { protocol: "processbench-critic", judge: "sim-judge-strong", extra: {} },
  ];

  it.each(cases)("$protocol: the run's PRMScore, F1 and negative F1 equal prmbench score on its exported predictions", async ({ protocol, judge, extra }) => {
    const config = path.join(scratch, `${protocol}.json`);
    await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: judge, protocol, bootstrap: { resamples: 200 }, ...extra }));
    const result = await runCliInProcess(["run", "benchmark", "--config", config], env());
    expect(result.code, result.stderr).toBe(0);
    const run = jsonOf(result) as { runId: string; status: string; summary: { prmbench: Figures & { by_class: Record<string, Figures>; ci95: Record<"prmscore" | "f1" | "negative_f1", { lower: number; upper: number }> | null; invalid: number; missing: number } } };
    expect(run.status).toBe("completed");
    const stored = await database.db.run.findUniqueOrThrow({ where: { id: run.runId }, select: { config: true } });
    expect(stored.config).toMatchObject({ scoring: "prmbench", stopAtFirstNegative: false, segmentationMethod: "prmbench-steps" });
    const { prmbench } = run.summary;
    expect(prmbench.n + prmbench.invalid).toBe(10);
    expect(prmbench.n).toBeGreaterThan(5);
    if (protocol === "stepwiser-chunk") {
      // Every step of every item judged: PRMBench counts every erroneous step, not only the first.
      const chunks = await database.db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
      expect(await database.db.judgeSample.count({ where: { runId: run.runId } })).toBe(chunks);
    }
    const exported = await runCliInProcess(["run", "predictions", run.runId, "--format", "prmbench"], env());
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split("\n").filter(Boolean);
    expect(lines.length + prmbench.invalid).toBe(11);
    const predictions = path.join(scratch, `${protocol}.jsonl`);
    await writeFile(predictions, `${lines.join("\n")}\n`);
    const scored = await runCliInProcess(["prmbench", "score", "--data", slice, "--predictions", predictions]);
    expect(scored.code, scored.stderr).toBe(0);
    const cli = jsonOf(scored) as Figures & { by_class: Record<string, Figures> };
    expect({ prmscore: prmbench.prmscore, f1: prmbench.f1, negative_f1: prmbench.negative_f1, n: prmbench.n }).toEqual({ prmscore: cli.prmscore, f1: cli.f1, negative_f1: cli.negative_f1, n: cli.n });
    expect(prmbench.by_class).toEqual(cli.by_class);
    if (prmbench.n > 0) {
      expect(prmbench.ci95).not.toBeNull();
      expect(prmbench.ci95!.f1.lower).toBeLessThanOrEqual(prmbench.ci95!.f1.upper);
    }
  });

  it("refuses predictions in the PRMBench format from a run that is not on a PRMBench import", async () => {
    const other = await database.db.run.create({ data: { kind: "segment", config: { datasetId, method: "blank-line" }, datasetId } });
    const refused = await runCliInProcess(["run", "predictions", other.id, "--format", "prmbench"], env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("PRMBench predictions come from benchmark or judge runs");
  });
});
