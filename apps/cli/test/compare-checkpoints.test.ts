import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { appRouter } from "@stepwiser/api";
import { atScale } from "@stepwiser/config/test-scale";
import { bootstrapCI, pairedBootstrapCI, scoreProcessBench, subsetFromId, type ProcessBenchGold } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot } from "./run-cli";

/**
 * Acceptance: `compare.checkpoints` and `compare.disagreements` on the shipped
 * ProcessBench subsets (gsm8k and math in one dataset), with a strong and a weak
 * simulated judge, agree with what a user gets from the command line
 * (`run predictions` + `processbench score`) and with intervals recomputed here
 * from those exported files alone.
 *
 * The agreement holds for any sample that has solutions with and without an error
 * in both subsets, so by default each subset is its first SOLUTIONS_PER_KIND of
 * each; STEPWISER_TEST_SCALE=full runs the whole files (gsm8k 400 + math 1,000).
 */
const demoDir = path.join(repoRoot, "packages/db/seed/processbench");
const SUBSETS = ["gsm8k", "math"];
const JUDGES = ["sim-judge-strong", "sim-judge-weak"] as const;
const SOLUTIONS_PER_KIND = atScale<number | "all">({ default: 10, full: "all" });
const RESAMPLES = 1000;
const SEED = 0;
const METRICS = ["f1", "acc_err", "acc_cor"] as const;
/** Several pages of disagreements at either scale, so paging is what is checked. */
const PAGE_SIZE = atScale({ default: 5, full: 100 });

type Solution = { id: string; label: number };

/** A file's first `perKind` solutions with an error and first `perKind` without, in file order (the files list the erroneous ones first). */
function sampleOf(records: Solution[], perKind: number | "all"): Solution[] {
  if (perKind === "all") return records;
  const taken = { error: 0, none: 0 };
  return records.filter((r) => {
    const kind = r.label === -1 ? "none" : "error";
    taken[kind] += 1;
    return taken[kind] <= perKind;
  });
}

type Scores = Record<string, { n: number; f1: number; acc_err: number; acc_cor: number }>;

describe("checkpoint comparison on the shipped ProcessBench subsets", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  let datasetId: string;
  const dataFiles: string[] = [];
  const gold: ProcessBenchGold[] = [];
  const runIds = new Map<string, string>();
  const summaries = new Map<string, { subsets: Scores; f1_ci95: Record<string, { lower: number; upper: number }> }>();
  const exported = new Map<string, Map<string, number | null>>();
  const cliScores = new Map<string, { subsets: Scores; average_f1: number }>();
  const timings: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 1000 });
    for (const model of JUDGES) {
      await database.db.endpoint.create({ data: { name: model, model, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 128 } });
    }
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-compare-"));
    const env = { DATABASE_URL: database.url };

    // Both samples as one dataset (runs are compared on one dataset); the gold is one file per subset, as shipped.
    const records: Solution[] = [];
    for (const subset of SUBSETS) {
      const sample = sampleOf(JSON.parse(await readFile(path.join(demoDir, `${subset}.json`), "utf8")) as Solution[], SOLUTIONS_PER_KIND);
      expect(sample.some((r) => r.label === -1) && sample.some((r) => r.label !== -1), `${subset} has solutions with and without an error`).toBe(true);
      const file = path.join(scratch, `${subset}.json`);
      await writeFile(file, JSON.stringify(sample));
      dataFiles.push(file);
      records.push(...sample);
    }
    for (const r of records) gold.push({ id: r.id, label: r.label, subset: subsetFromId(r.id) });
    const combined = path.join(scratch, "processbench-gsm8k-math.json");
    await writeFile(combined, JSON.stringify(records));
    const imported = await runCliInProcess(["import", "processbench", combined], env);
    expect(imported.code, imported.stderr).toBe(0);
    datasetId = (jsonOf(imported) as { runs: Array<{ datasetId: string }> }).runs[0]!.datasetId;

    // One after the other: the in-process command line runs one command at a time.
    for (const judge of JUDGES) {
      const started = Date.now();
      await (async () => {
        const config = path.join(scratch, `${judge}.config.json`);
        await writeFile(config, JSON.stringify({ datasetId, judgeEndpoint: judge, mode: "chunk-judge", concurrency: 64, bootstrap: { resamples: RESAMPLES, seed: SEED } }));
        const result = await runCliInProcess(["run", "benchmark", "--config", config], env);
        expect(result.code, result.stderr).toBe(0);
        const run = jsonOf(result) as { runId: string; status: string; summary: { subsets: Scores; f1_ci95: Record<string, { lower: number; upper: number }> } };
        expect(run.status).toBe("completed");
        runIds.set(judge, run.runId);
        summaries.set(judge, run.summary);
      })();
      timings.push(`${judge} benchmark over ${records.length.toLocaleString("en")} solutions: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }

    for (const judge of JUDGES) {
      const lines = await runCliInProcess(["run", "predictions", runIds.get(judge)!], env);
      expect(lines.code, lines.stderr).toBe(0);
      const file = path.join(scratch, `${judge}.jsonl`);
      await writeFile(file, lines.stdout);
      exported.set(judge, new Map(lines.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; prediction: number | null }).map((p) => [p.id, p.prediction])));
      const scored = await runCliInProcess(["processbench", "score", "--data", ...dataFiles, "--predictions", file]);
      expect(scored.code, scored.stderr).toBe(0);
      cliScores.set(judge, jsonOf(scored) as { subsets: Scores; average_f1: number });
    }
  }, 1_800_000);

  afterAll(async () => {
    console.info(timings.join("\n"));
    await cluster?.stop();
    await database?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const caller = () =>
    appRouter.createCaller({
      db: database.db,
      getQueue: async () => {
        throw new Error("no queue needed");
      },
      user: { id: "viewer", email: "viewer@example.test", name: "Viewer", role: "viewer" },
    });

  /** A metric of one subset on a resample, scored by `scoreProcessBench` with every drawn item under its own id. */
  const resampledMetric = (predictions: Map<string, number | null>, subset: string, metric: (typeof METRICS)[number]) => (sample: readonly ProcessBenchGold[]) => {
    const items: ProcessBenchGold[] = [];
    const predicted = new Map<string, number | null>();
    sample.forEach((item, i) => {
      items.push({ ...item, id: `${item.id}#${i}` });
      if (predictions.has(item.id)) predicted.set(`${item.id}#${i}`, predictions.get(item.id)!);
    });
    return scoreProcessBench(items, predicted).subsets[subset]![metric];
  };

  it("scores, intervals and deltas equal the command line's scores and intervals recomputed from the exported files", async () => {
    const started = Date.now();
    const strong = runIds.get("sim-judge-strong")!;
    const weak = runIds.get("sim-judge-weak")!;
    const result = await caller().compare.checkpoints({ runIds: [strong, weak], baselineRunId: weak });
    timings.push(`compare.checkpoints (${RESAMPLES} resamples): ${Date.now() - started} ms`);
    expect(result).toMatchObject({ subsets: SUBSETS, gold: gold.length, baselineRunId: weak, resamples: RESAMPLES });
    // Both runs are finished: their replicates were drawn once and stored, and the same comparison read back from them is the same.
    expect(await database.db.bootstrapReplicates.count({ where: { runId: { in: [strong, weak] } } })).toBe(2);
    expect(await caller().compare.checkpoints({ runIds: [weak, strong], baselineRunId: weak })).toEqual({ ...result, runs: [...result.runs].reverse() });
    expect(await database.db.bootstrapReplicates.count({ where: { runId: { in: [strong, weak] } } })).toBe(2);

    for (const judge of JUDGES) {
      const row = result.runs.find((r) => r.id === runIds.get(judge))!;
      const cli = cliScores.get(judge)!;
      const predictions = exported.get(judge)!;
      expect(predictions.size).toBe(gold.length);
      expect(row.missing).toBe(0);
      for (const subset of SUBSETS) {
        const mine = row.bySubset[subset]!;
        expect({ n: mine.n, f1: mine.f1, acc_err: mine.acc_err, acc_cor: mine.acc_cor }, `${judge} ${subset}`).toEqual({
          n: cli.subsets[subset]!.n,
          f1: cli.subsets[subset]!.f1,
          acc_err: cli.subsets[subset]!.acc_err,
          acc_cor: cli.subsets[subset]!.acc_cor,
        });
        const items = gold.filter((g) => g.subset === subset);
        for (const metric of METRICS) {
          const ci = bootstrapCI(items, resampledMetric(predictions, subset, metric), { resamples: RESAMPLES, seed: SEED });
          expect(mine.ci[metric], `${judge} ${subset} ${metric} interval`).toEqual({ lower: ci.lower, upper: ci.upper });
        }
        // The same interval the benchmark run stored in its summary.
        expect(mine.ci.f1).toEqual(summaries.get(judge)!.f1_ci95[subset]);
      }
      expect(row.average.f1).toBe(cli.average_f1);
    }

    const strongRow = result.runs.find((r) => r.id === strong)!;
    expect(result.runs.find((r) => r.id === weak)!.delta).toBeNull();
    for (const subset of SUBSETS) {
      const items = gold.filter((g) => g.subset === subset);
      for (const metric of METRICS) {
        const delta = strongRow.delta!.bySubset[subset]![metric];
        expect(delta.estimate, `${subset} ${metric} delta`).toBe(cliScores.get("sim-judge-strong")!.subsets[subset]![metric] - cliScores.get("sim-judge-weak")!.subsets[subset]![metric]);
        const ci = pairedBootstrapCIOver(items, exported.get("sim-judge-strong")!, exported.get("sim-judge-weak")!, subset, metric);
        expect({ lower: delta.lower, upper: delta.upper }, `${subset} ${metric} delta interval`).toEqual({ lower: ci.lower, upper: ci.upper });
        expect(delta.pValue).toBeGreaterThanOrEqual(0);
        expect(delta.pValue).toBeLessThanOrEqual(1);
      }
    }
  });

  /**
   * pairedBootstrapCI needs one item list per system with one statistic: each
   * item carries both predictions and the statistic reads the side it is given.
   */
  function pairedBootstrapCIOver(items: readonly ProcessBenchGold[], a: Map<string, number | null>, b: Map<string, number | null>, subset: string, metric: (typeof METRICS)[number]) {
    const side = (predictions: Map<string, number | null>) => items.map((g) => ({ gold: g, predictions }));
    return pairedBootstrapCI(side(a), side(b), (sample) => resampledMetric(sample[0]!.predictions, subset, metric)(sample.map((s) => s.gold)), { resamples: RESAMPLES, seed: SEED });
  }

  it("stored replicates answer only for the predictions they were drawn from: a changed prediction draws again, as if none were stored", async () => {
    const strong = runIds.get("sim-judge-strong")!;
    const weak = runIds.get("sim-judge-weak")!;
    const { db } = database;
    const compare = () => caller().compare.checkpoints({ runIds: [strong, weak], baselineRunId: weak });
    const before = await compare();
    const stored = await db.bootstrapReplicates.count({ where: { runId: strong } });
    // A wrong prediction made right: the run's scores change.
    const candidates = await db.solutionPrediction.findMany({ where: { runId: strong }, orderBy: { solutionId: "asc" }, select: { id: true, predictedFirstError: true, solution: { select: { sourceFirstErrorIndex: true } } } });
    const changed = candidates.find((p) => p.solution.sourceFirstErrorIndex !== null && p.predictedFirstError !== p.solution.sourceFirstErrorIndex)!;
    await db.solutionPrediction.update({ where: { id: changed.id }, data: { predictedFirstError: changed.solution.sourceFirstErrorIndex } });
    try {
      const after = await compare();
      expect(await db.bootstrapReplicates.count({ where: { runId: strong } })).toBe(stored + 1);
      expect(after.runs.find((r) => r.id === strong)!.average.f1).not.toBe(before.runs.find((r) => r.id === strong)!.average.f1);
      await db.bootstrapReplicates.deleteMany({ where: { runId: { in: [strong, weak] } } });
      expect(await compare()).toEqual(after);
    } finally {
      await db.solutionPrediction.update({ where: { id: changed.id }, data: { predictedFirstError: changed.predictedFirstError } });
    }
    expect(await compare()).toEqual(before);
  });

  it("disagreements list exactly the solutions whose exported predictions differ, across all pages", async () => {
    const strong = runIds.get("sim-judge-strong")!;
    const weak = runIds.get("sim-judge-weak")!;
    const a = exported.get("sim-judge-strong")!;
    const b = exported.get("sim-judge-weak")!;
    const expected = gold.filter((g) => a.get(g.id) !== b.get(g.id)).map((g) => g.id);
    expect(expected.length).toBeGreaterThan(0);

    const listed: string[] = [];
    let cursor: number | null = 0;
    let pages = 0;
    let total = -1;
    while (cursor !== null) {
      const page = await caller().compare.disagreements({ runA: strong, runB: weak, cursor, limit: PAGE_SIZE });
      total = page.total;
      for (const item of page.items) {
        listed.push(item.externalId);
        expect(item.a).toBe(a.get(item.externalId));
        expect(item.b).toBe(b.get(item.externalId));
        expect(item.kind).toBe(item.a === item.gold ? "a_right" : item.b === item.gold ? "b_right" : "both_wrong");
      }
      cursor = page.nextCursor;
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(expected.length / PAGE_SIZE));
    expect(pages).toBeGreaterThan(1);
    expect(listed).toHaveLength(new Set(listed).size);
    expect(new Set(listed)).toEqual(new Set(expected));
    expect(total).toBe(expected.length);

    // Filters narrow the same list.
    const gsm8kErrorFree = await caller().compare.disagreements({ runA: strong, runB: weak, subset: "gsm8k", goldFirstError: "none", limit: 500 });
    // On a sample too, some are left for the filters to find.
    expect(gsm8kErrorFree.items.length).toBeGreaterThan(0);
    expect(gsm8kErrorFree.items.map((i) => i.externalId).sort()).toEqual(expected.filter((id) => id.startsWith("gsm8k-") && gold.find((g) => g.id === id)!.label === -1).sort());
  });

  it("refuses runs on different datasets with a clear message", async () => {
    const other = await database.db.dataset.create({ data: { name: "other", source: "test" } });
    const run = await database.db.run.create({ data: { kind: "judge", status: "completed", datasetId: other.id, config: { datasetId: other.id, judgeEndpoint: "sim-judge-weak" } } });
    await expect(caller().compare.checkpoints({ runIds: [runIds.get("sim-judge-strong")!, run.id], baselineRunId: run.id })).rejects.toThrow(/one dataset/);
  });
});
