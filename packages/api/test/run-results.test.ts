import type { TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { bytesOf, connectJobQueue, createAndExecuteRun, createSimWorldDataset, EndpointClients, runExport, runImport, storeFile } from "@stepwiser/jobs";
import { createWorldDatabase, type SimulatedWorld } from "@stepwiser/jobs/testing/simulated-world";
import { bootstrapCI } from "@stepwiser/core";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { appRouter, createCallerFactory } from "../src";

type Reading = "Positive" | "Negative" | "unparseable";

/** Cohen's κ of two rating lists, written out here from its definition rather than taken from core. */
function kappaOf(a: Reading[], b: Reading[]): number {
  const n = a.length;
  const categories = [...new Set([...a, ...b])];
  const observed = a.filter((x, i) => x === b[i]).length / n;
  const expected = categories.reduce((sum, c) => sum + (a.filter((x) => x === c).length / n) * (b.filter((x) => x === c).length / n), 0);
  return expected === 1 ? 1 : (observed - expected) / (1 - expected);
}

/** The 2×2 (+ unparseable) counts, F1 of the Negative class and κ of the judge against reference labels, chunk by chunk. */
function agreementOf(pairs: { reference: "Positive" | "Negative"; judge: Reading }[]) {
  const counts = { Positive: { Positive: 0, Negative: 0, unparseable: 0 }, Negative: { Positive: 0, Negative: 0, unparseable: 0 } };
  for (const p of pairs) counts[p.reference][p.judge] += 1;
  const truePositive = counts.Negative.Negative;
  const predicted = counts.Negative.Negative + counts.Positive.Negative;
  const support = counts.Negative.Positive + counts.Negative.Negative + counts.Negative.unparseable;
  const precision = predicted ? truePositive / predicted : 0;
  const recall = support ? truePositive / support : 0;
  return {
    counts,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    kappa: kappaOf(
      pairs.map((p) => p.reference),
      pairs.map((p) => p.judge),
    ),
    disagreements: pairs.filter((p) => p.reference !== p.judge).length,
  };
}

describe("run results on runs of the simulated cluster", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let world: SimulatedWorld;
  // The finished simulated world's runs are read; the kinds it lacks are run here, on a live cluster.
  beforeAll(async () => {
    ({ world, ...database } = await createWorldDatabase(inject("postgresAdminUrl")));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    await database.db.endpoint.updateMany({ data: { baseUrls: [...cluster.urls] } });
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  it("give an annotate run's labels, Q-values and plan, a judge run's agreement and a benchmark run's intervals, recomputed here from the stored rows", async () => {
    const { db } = database;
    // The world's runs: annotate (sim-policy, M = 4, seed 2), judge (sim-judge-weak, K = 3 at temperature 1) and
    // benchmark (sim-judge-weak, one sample at temperature 1, self-segmented chunks, 200 resamples, seed 1).
    const { datasetId } = world;
    const annotateRun = world.runs.annotate;
    const judgeRun = world.runs.judgeWeak;
    const benchmarkRun = world.runs.benchmark;
    const caller = createCallerFactory(appRouter)({ db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
    const chunks = await db.chunk.findMany({ where: { segmentation: { solution: { datasetId } } }, select: { id: true, index: true, segmentation: { select: { solution: { select: { id: true, sourceFirstErrorIndex: true } } } } } });

    // ── annotate ──
    const annotate = await caller.run.results({ id: annotateRun });
    if (annotate.kind !== "annotate") throw new Error(`expected an annotate result, got ${annotate.kind}`);
    const labels = await db.chunkLabel.findMany({ where: { runId: annotateRun }, select: { chunkId: true, rule: true, paramsKey: true, label: true } });
    const rules = [...new Set(labels.map((l) => `${l.rule}|${l.paramsKey}`))];
    expect(annotate.labelBalance).toHaveLength(rules.length);
    for (const row of annotate.labelBalance) {
      const mine = labels.filter((l) => l.rule === row.rule && l.paramsKey === row.paramsKey);
      expect([row.positive, row.negative]).toEqual([mine.filter((l) => l.label === "Positive").length, mine.filter((l) => l.label === "Negative").length]);
      expect(row.positive + row.negative).toBe(chunks.length);
    }
    const values = await db.chunkValue.findMany({ where: { runId: annotateRun, prefixLength: { gt: 0 } }, select: { qValue: true } });
    const qBins = Array.from({ length: 10 }, () => 0);
    for (const { qValue } of values) qBins[Math.min(9, Math.floor(qValue * 10))]! += 1;
    expect(annotate.qValues.map((b) => b.count)).toEqual(qBins);
    expect(annotate.qValues.reduce((n, b) => n + b.count, 0)).toBe(chunks.length);
    // A fixed run draws M rollouts from each prefix 0..k−1: the plan says so, and the run did it.
    expect(annotate.usage.actual.rollouts).toBe(4 * chunks.length);
    expect(annotate.usage.estimate).toMatchObject({ rollouts: 4 * chunks.length, requests: chunks.length, qSource: "assumed" });
    expect(annotate.usage.estimateError).toBeNull();
    expect(annotate.summary).toMatchObject({ rollouts: 4 * chunks.length });

    // ── judge ──
    const judge = await caller.run.results({ id: judgeRun });
    if (judge.kind !== "judge") throw new Error(`expected a judge result, got ${judge.kind}`);
    const samples = await db.judgeSample.findMany({ where: { runId: judgeRun }, select: { chunkId: true, verdict: true } });
    const majority = new Map<string, Reading>();
    for (const chunkId of new Set(samples.map((s) => s.chunkId))) {
      const mine = samples.filter((s) => s.chunkId === chunkId);
      const positive = mine.filter((s) => s.verdict === "Positive").length;
      const negative = mine.filter((s) => s.verdict === "Negative").length;
      // The judge run's default tie policy calls a tie Negative.
      majority.set(chunkId, positive + negative === 0 ? "unparseable" : positive > negative ? "Positive" : "Negative");
    }
    expect(judge.judgedChunks).toBe(chunks.length);
    expect(judge.summary).toMatchObject({ samples: samples.length });
    expect(judge.agreements.map((a) => a.reference.kind)).toEqual([...rules.map(() => "annotate"), "source"]);
    for (const agreement of judge.agreements) {
      const reference = new Map<string, "Positive" | "Negative">();
      if (agreement.reference.kind === "annotate") {
        const { rule, paramsKey } = agreement.reference;
        for (const l of labels) if (l.rule === rule && l.paramsKey === paramsKey) reference.set(l.chunkId, l.label);
      } else {
        // The source's first error: Positive before it, Negative at it, no label after it.
        for (const c of chunks) {
          const first = c.segmentation.solution.sourceFirstErrorIndex!;
          if (first < 0 || c.index < first) reference.set(c.id, "Positive");
          else if (c.index === first) reference.set(c.id, "Negative");
        }
      }
      const expected = agreementOf([...reference].map(([chunkId, label]) => ({ reference: label, judge: majority.get(chunkId)! })));
      expect(agreement.chunks).toBe(reference.size);
      expect(agreement.matrix.counts).toEqual(expected.counts);
      expect(agreement.negative.f1).toBeCloseTo(expected.f1, 12);
      expect(agreement.kappa).toBeCloseTo(expected.kappa, 12);
      expect(agreement.disagreements.total).toBe(expected.disagreements);
      for (const d of agreement.disagreements.listed) {
        expect(d.judge).toBe(majority.get(d.chunkId));
        expect(d.reference).toBe(reference.get(d.chunkId));
        expect(chunks.find((c) => c.id === d.chunkId)).toMatchObject({ index: d.index, segmentation: { solution: { id: d.solutionId } } });
      }
    }
    // The weak judge is wrong often enough for the check above to have disagreements to check.
    expect(judge.agreements.some((a) => a.disagreements.total > 0)).toBe(true);

    // ── benchmark ──
    const benchmark = await caller.run.results({ id: benchmarkRun });
    if (benchmark.kind !== "benchmark") throw new Error(`expected a benchmark result, got ${benchmark.kind}`);
    // The gold in file order with the run's predictions, read here from the rows.
    const goldRows = await db.solution.findMany({
      where: { datasetId, sourceFirstErrorIndex: { not: null }, segmentations: { some: { method: "self-segmented" } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, sourceFirstErrorIndex: true },
    });
    const predicted = new Map((await db.solutionPrediction.findMany({ where: { runId: benchmarkRun }, select: { solutionId: true, predictedFirstError: true } })).map((p) => [p.solutionId, p.predictedFirstError]));
    const solutions = goldRows.map((t) => ({ label: t.sourceFirstErrorIndex!, prediction: predicted.has(t.id) ? predicted.get(t.id)! : undefined }));
    const errors = solutions.filter((s) => s.label >= 0);
    const hits = errors.filter((s) => s.prediction === s.label).length;
    const [sim] = benchmark.subsets;
    expect(benchmark.subsets.map((s) => s.subset)).toEqual(["sim"]);
    expect(sim!.nError).toBe(errors.length);
    expect(sim!.accErr).toMatchObject({ hits, of: errors.length, estimate: hits / errors.length });
    // Every number's interval: the percentile bootstrap over the subset's solutions, 200 resamples, seed 1 (the run's), written out here.
    const options = { resamples: 200, seed: 1 };
    const accuracy = (sample: readonly { label: number; prediction: number | null | undefined }[], errorClass: boolean) => {
      const own = sample.filter((s) => (s.label >= 0) === errorClass);
      return own.length ? own.filter((s) => s.prediction === s.label).length / own.length : 0;
    };
    const f1 = (sample: readonly { label: number; prediction: number | null | undefined }[]) => {
      const [e, c] = [accuracy(sample, true), accuracy(sample, false)];
      return e + c === 0 ? 0 : (2 * e * c) / (e + c);
    };
    const bounds = ({ lower, upper }: { lower: number; upper: number }) => ({ lower, upper });
    expect(bounds(sim!.accErr as { lower: number; upper: number })).toEqual(bounds(bootstrapCI(solutions, (sample) => accuracy(sample, true), options)));
    expect(bounds(sim!.accCor as { lower: number; upper: number })).toEqual(bounds(bootstrapCI(solutions, (sample) => accuracy(sample, false), options)));
    expect(bounds(sim!.f1 as { lower: number; upper: number })).toEqual(bounds(bootstrapCI(solutions, f1, options)));
    // One subset: the stratified average's resamples are that subset's, so its interval is the subset's F1 interval.
    expect(benchmark.summary).toMatchObject({ subsetsInAverage: ["sim"], averageIsPartial: true, intervals: "summary", averageF1: { estimate: sim!.f1.estimate, lower: sim!.f1.lower, upper: sim!.f1.upper } });

    await expect(caller.run.results({ id: "no-such-run" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  }, 120_000);

  it("read the other kinds' summaries: generate with its solutions' shape, best of N on them, chunk reset, segment, import and export", async () => {
    const { db } = database;
    const { datasetId } = await createSimWorldDataset(db, { name: "results-other", problems: 3, seed: 21 });
    const researcher = await db.user.create({ data: { id: "r-results", name: "R", email: "r@results.test", role: "researcher" } });
    // Imports and exports are queued; the test runs their jobs itself.
    const queue = await connectJobQueue(database.url);
    onTestFinished(() => queue.stop({ graceful: false, wait: true }));
    const caller = createCallerFactory(appRouter)({ db, getQueue: async () => queue, user: { id: researcher.id, email: researcher.email, name: "R", role: "researcher" } });
    const launch = async (kind: "generate" | "best_of_n" | "chunk_reset" | "segment", config: object) => (await createAndExecuteRun(db, { kind, config }, { endpoints })).id;

    // ── generate: the solutions' chunk counts and lengths, counted here from the rows it wrote ──
    const generateRun = await launch("generate", { datasetId, policyEndpoint: "sim-policy", samplesPerProblem: 4, seed: 5 });
    const generate = await caller.run.results({ id: generateRun });
    if (generate.kind !== "generate") throw new Error(`expected a generate result, got ${generate.kind}`);
    const summary = generate.summary!;
    const written = await db.solution.findMany({ where: { datasetId: summary.outputDatasetId }, select: { text: true, segmentations: { where: { method: "self-segmented" }, select: { _count: { select: { chunks: true } } } } } });
    expect(summary.solutions).toBe(12);
    expect(written).toHaveLength(12);
    const chunkCounts = written.flatMap((t) => t.segmentations.map((s) => s._count.chunks));
    for (const bin of generate.chunksPerSolution) expect(bin.solutions).toBe(chunkCounts.filter((n) => n === bin.chunks).length);
    expect(generate.chunksPerSolution.reduce((n, b) => n + b.solutions, 0)).toBe(chunkCounts.length);
    const lengths = written.map((t) => [...t.text].length).sort((a, b) => a - b);
    expect(generate.solutionLength!.mean).toBeCloseTo(lengths.reduce((a, b) => a + b, 0) / lengths.length, 9);
    expect(generate.solutionLength!.median).toBeCloseTo((lengths[5]! + lengths[6]!) / 2, 9);
    expect([generate.solutionLength!.min, generate.solutionLength!.max]).toEqual([lengths[0], lengths[11]]);
    const run = await db.run.findUniqueOrThrow({ where: { id: generateRun }, select: { completionTokens: true } });
    expect(generate.tokensPerSolution).toBeCloseTo(Number(run.completionTokens) / 12, 9);

    // ── best of N on the generated solutions, chunk reset on the problems ──
    const best = await caller.run.results({ id: await launch("best_of_n", { datasetId: summary.outputDatasetId, judgeEndpoint: "sim-judge-weak", samples: 1 }) });
    expect(best).toMatchObject({ kind: "best_of_n", summary: { problems: 3 } });
    if (best.kind !== "best_of_n") throw new Error("expected a best-of-N result");
    for (const share of Object.values(best.summary!.accuracy)) expect([0, 1 / 3, 2 / 3, 1].some((v) => Math.abs(v - share) < 1e-12)).toBe(true);
    const reset = await caller.run.results({ id: await launch("chunk_reset", { datasetId, policyEndpoint: "sim-policy", judgeEndpoint: "sim-judge-weak", limit: 2 }) });
    if (reset.kind !== "chunk_reset") throw new Error("expected a chunk-reset result");
    expect(reset.summary!.problems).toBe(2);
    expect(reset.summary!.tokens.accepted).toBeGreaterThan(0);

    // ── segment: blank lines on the sim solutions ──
    const segment = await caller.run.results({ id: await launch("segment", { datasetId, method: "blank-line" }) });
    if (segment.kind !== "segment") throw new Error("expected a segment result");
    expect(segment.summary).toMatchObject({ method: "blank-line", solutions: 3 });
    expect(segment.summary!.byMethod.map((m) => m.method)).toEqual(["blank-line", "self-segmented"]);

    // ── import and export: a two-record Math-Shepherd file, then its labels ──
    const lines = [0, 1].map((i) => {
      const problem = `Tom has ${i + 3} apples and buys 1 more. How many apples does he have?`;
      const steps = [`Step 1: He starts with ${i + 3} apples.`, `Step 2: The answer is: ${i + 4}`];
      return JSON.stringify({ input: `${problem} ${steps.map((x) => `${x} ки`).join("\n")}`, label: `${problem} ${steps.map((x) => `${x} +`).join("\n")}`, task: "GSM8K" });
    });
    const file = await storeFile(db, { fileName: "shepherd.jsonl", purpose: "upload", createdById: researcher.id }, bytesOf(`${lines.join("\n")}\n`));
    const { runId: importRunId } = await caller.import.start({ fileId: file.id, options: { format: "math-shepherd", datasetName: "Shepherd for results" } });
    await runImport(db, importRunId);
    const imported = await caller.run.results({ id: importRunId });
    expect(imported).toMatchObject({ kind: "import", summary: { format: "math-shepherd", records: 2, written: 2, chunks: 4, chunkLabels: 4 } });
    const { runId: exportRunId } = await caller.export.start({ spec: { kind: "labels", runId: importRunId } });
    await runExport(db, exportRunId);
    const exported = await caller.run.results({ id: exportRunId });
    const files = await db.storedFile.findMany({ where: { producedByRunId: exportRunId }, select: { id: true, fileName: true, sizeBytes: true } });
    expect(exported).toMatchObject({ kind: "export", summary: { kind: "labels", files: files.map((f) => ({ id: f.id, fileName: f.fileName, sizeBytes: Number(f.sizeBytes) })) } });
    if (exported.kind !== "export") throw new Error("expected an export result");
    // In the order PostgreSQL's jsonb keeps the report's keys.
    expect([...exported.summary!.facts].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "chunks", value: 4 },
      { name: "sourceKind", value: "import" },
    ]);
  }, 120_000);

  it("score a judge run against gold step labels: PRMBench's error steps, step by step and solution by solution", async () => {
    const { db } = database;
    const researcher = await db.user.create({ data: { id: "r-gold", name: "G", email: "g@results.test", role: "researcher" } });
    const queue = await connectJobQueue(database.url);
    onTestFinished(() => queue.stop({ graceful: false, wait: true }));
    const caller = createCallerFactory(appRouter)({ db, getQueue: async () => queue, user: { id: researcher.id, email: researcher.email, name: "G", role: "researcher" } });
    const fixture = path.resolve(import.meta.dirname, "../../core/test/fixtures/prmbench/prmbench-sample.jsonl");
    const lines = readFileSync(fixture, "utf8").trim().split("\n").filter((line) => (JSON.parse(line) as { idx: string }).idx === "prm_test_p1_2");
    const file = await storeFile(db, { fileName: "prmbench.jsonl", purpose: "upload", createdById: researcher.id }, bytesOf(`${lines.join("\n")}\n`));
    const { runId: importRunId } = await caller.import.start({ fileId: file.id, options: { format: "prmbench", datasetName: "PRMBench for results" } });
    await runImport(db, importRunId);
    const datasetId = (await db.run.findUniqueOrThrow({ where: { id: importRunId }, select: { datasetId: true } })).datasetId!;
    const judgeRun = (await createAndExecuteRun(db, { kind: "judge", config: { datasetId, segmentationMethod: "prmbench-steps", judgeEndpoint: "sim-judge-weak" } }, { endpoints })).id;
    const results = await caller.run.results({ id: judgeRun });
    if (results.kind !== "judge") throw new Error("expected a judge result");
    const gold = results.agreements.find((a) => a.reference.kind === "prmbench")!;
    expect(gold).toBeDefined();

    // Written out here: each chunk's gold from the item's error steps, against the run's majority verdict.
    const chunks = await db.chunk.findMany({
      where: { segmentation: { method: "prmbench-steps", solution: { datasetId } } },
      select: { index: true, chunkVotes: { where: { runId: judgeRun }, select: { positive: true, negative: true, unparseable: true } }, segmentation: { select: { solutionId: true, solution: { select: { metadata: true } } } } },
    });
    const counts = { Positive: { Positive: 0, Negative: 0, unparseable: 0 }, Negative: { Positive: 0, Negative: 0, unparseable: 0 } };
    const solutions = new Map<string, { error: boolean; flagged: boolean }>();
    for (const chunk of chunks) {
      const votes = chunk.chunkVotes[0]!;
      const verdict: Reading = votes.positive > votes.negative ? "Positive" : votes.negative > 0 ? "Negative" : votes.unparseable > 0 && votes.positive === 0 ? "unparseable" : "Negative";
      const errors = (chunk.segmentation.solution.metadata as { prmbench: { error_steps: number[] } }).prmbench.error_steps;
      const reference = errors.includes(chunk.index + 1) ? "Negative" : "Positive";
      counts[reference][verdict] += 1;
      const entry = solutions.get(chunk.segmentation.solutionId) ?? { error: false, flagged: false };
      solutions.set(chunk.segmentation.solutionId, { error: entry.error || reference === "Negative", flagged: entry.flagged || verdict === "Negative" });
    }
    expect(gold.matrix.counts).toEqual(counts);
    expect(gold.chunks).toBe(chunks.length);
    const positiveRecall = counts.Positive.Positive / (counts.Positive.Positive + counts.Positive.Negative + counts.Positive.unparseable);
    const negativeRecall = counts.Negative.Negative / (counts.Negative.Positive + counts.Negative.Negative + counts.Negative.unparseable);
    const positivePrecision = counts.Positive.Positive / (counts.Positive.Positive + counts.Negative.Positive);
    expect(gold.balancedAccuracy).toBeCloseTo((positiveRecall + negativeRecall) / 2, 12);
    expect(gold.positive.f1).toBeCloseTo((2 * positivePrecision * positiveRecall) / (positivePrecision + positiveRecall), 12);
    const withError = [...solutions.values()].filter((s) => s.error);
    const flagged = [...solutions.values()].filter((s) => s.flagged);
    const hits = withError.filter((s) => s.flagged).length;
    expect(gold.solutions).toMatchObject({ solutions: solutions.size, withError: withError.length, flagged: flagged.length });
    const precision = hits / flagged.length;
    const recall = hits / withError.length;
    expect(gold.solutions.f1).toBeCloseTo((2 * precision * recall) / (precision + recall), 12);
    // The all-correct item has no error; the classes' items do.
    expect(withError.length).toBe(solutions.size - 1);
  }, 120_000);
});
