import { describe, expect, it } from "vitest";
import { compareCheckpoints } from "../../src/compare/checkpoints";
import { predictionDisagreements } from "../../src/compare/disagreements";
import { scorePredictedSolutions, scoreProcessBench, type ProcessBenchGold } from "../../src/processbench/metrics";
import { bootstrapCI, pairedBootstrapCI, pairedBootstrapTest } from "../../src/stats/bootstrap";
import { meanOverStrata, pairedStratifiedBootstrapTest, stratifiedBootstrapCI } from "../../src/stats/stratified-bootstrap";
import { createRng } from "../../src/stats/random";

// Subset "a": two erroneous (labels 2, 1) and two error-free; subset "b": one of each.
const gold: ProcessBenchGold[] = [
  { id: "a-0", label: -1, subset: "a" },
  { id: "a-1", label: 2, subset: "a" },
  { id: "a-2", label: -1, subset: "a" },
  { id: "a-3", label: 1, subset: "a" },
  { id: "b-0", label: 0, subset: "b" },
  { id: "b-1", label: -1, subset: "b" },
];
const strong = new Map<string, number | null>([
  ["a-0", -1], // hit
  ["a-1", 2], // hit
  ["a-2", 0], // miss
  ["a-3", 1], // hit
  ["b-0", 0], // hit
  ["b-1", -1], // hit
]);
const weak = new Map<string, number | null>([
  ["a-0", -1], // hit
  ["a-1", 0], // miss
  ["a-2", -1], // hit
  ["a-3", null], // unparseable: miss
  ["b-0", 1], // miss
  // b-1 missing: miss
]);

describe("checkpoint comparison", () => {
  const result = compareCheckpoints({ gold, runs: [{ id: "strong", predictions: strong }, { id: "weak", predictions: weak }], baselineId: "weak", resamples: 200, seed: 7 });
  const [s, w] = result.runs;

  it("scores each run per subset and averages the subsets without weights", () => {
    expect(result.subsets).toEqual(["a", "b"]);
    // strong, a: acc_err 2/2, acc_cor 1/2, F1 = 2·1·0.5 / 1.5 = 2/3
    expect(s!.bySubset.a).toMatchObject({ n: 4, n_error: 2, n_correct: 2, acc_err: 1, acc_cor: 0.5 });
    expect(s!.bySubset.a!.f1).toBeCloseTo(2 / 3, 15);
    expect(s!.bySubset.b).toMatchObject({ n: 2, acc_err: 1, acc_cor: 1, f1: 1 });
    expect(s!.average.f1).toBeCloseTo((2 / 3 + 1) / 2, 15);
    expect(s!.average.acc_cor).toBe(0.75);
    // weak, a: acc_err 0/2, acc_cor 2/2 → F1 0; b: nothing right → 0
    expect(w!.bySubset.a).toMatchObject({ acc_err: 0, acc_cor: 1, f1: 0 });
    expect(w!.bySubset.b).toMatchObject({ acc_err: 0, acc_cor: 0, f1: 0 });
    expect(w).toMatchObject({ missing: 1, unparseable: 1, isBaseline: true, delta: null });
  });

  it("gives the scores processbench score gives", () => {
    for (const [run, predictions] of [[s!, strong], [w!, weak]] as const) {
      const cli = scoreProcessBench(gold, predictions);
      for (const subset of ["a", "b"]) expect(run.bySubset[subset]).toMatchObject(cli.subsets[subset]!);
      expect(run.average.f1).toBe(cli.average_f1);
    }
  });

  it("intervals are bootstrapCI over the subset's gold items in order, per metric", () => {
    const items = gold.filter((g) => g.subset === "a").map((g) => ({ label: g.label, prediction: strong.get(g.id) }));
    for (const metric of ["f1", "acc_err", "acc_cor"] as const) {
      const ci = bootstrapCI(items, (sample) => scorePredictedSolutions(sample)[metric], { resamples: 200, seed: 7 });
      expect(s!.bySubset.a!.ci[metric]).toEqual({ lower: ci.lower, upper: ci.upper });
    }
  });

  it("deltas are paired-bootstrap differences from the baseline, with p = 1 when nothing differs", () => {
    const a = gold.filter((g) => g.subset === "a");
    const ci = pairedBootstrapCI(
      a.map((g) => ({ label: g.label, prediction: strong.get(g.id) })),
      a.map((g) => ({ label: g.label, prediction: weak.get(g.id) })),
      (sample) => scorePredictedSolutions(sample).f1,
      { resamples: 200, seed: 7 },
    );
    expect(s!.delta!.bySubset.a!.f1).toMatchObject({ estimate: ci.estimate, lower: ci.lower, upper: ci.upper });
    expect(s!.delta!.bySubset.a!.f1.estimate).toBeCloseTo(2 / 3, 15);
    expect(s!.delta!.average.f1.estimate).toBeCloseTo((2 / 3 + 1) / 2, 15);
    const same = compareCheckpoints({ gold, runs: [{ id: "x", predictions: strong }, { id: "y", predictions: strong }], baselineId: "y", resamples: 50, seed: 1 });
    expect(same.runs[0]!.delta!.bySubset.a!.f1).toEqual({ estimate: 0, lower: 0, upper: 0, pValue: 1 });
  });

  it("a run right on every erroneous item where the baseline is wrong has p = 0 on acc_err", () => {
    // Subset a's erroneous items: strong hits both, weak neither, so every resample's difference is ≥ 0,
    // and it is 0 only when a resample holds no erroneous item (then both accuracies are 0).
    const only = gold.filter((g) => g.label !== -1 && g.subset === "a");
    const r = compareCheckpoints({ gold: only, runs: [{ id: "s", predictions: strong }, { id: "w", predictions: weak }], baselineId: "w", resamples: 100, seed: 3 });
    expect(r.runs[0]!.delta!.bySubset.a!.acc_err).toEqual({ estimate: 1, lower: 1, upper: 1, pValue: 0 });
  });

  it("refuses a baseline that is not compared and gold ids that repeat", () => {
    expect(() => compareCheckpoints({ gold, runs: [{ id: "s", predictions: strong }], baselineId: "w", seed: 0 })).toThrow(/baseline/);
    expect(() => compareCheckpoints({ gold: [...gold, gold[0]!], runs: [{ id: "s", predictions: strong }], baselineId: "s", seed: 0 })).toThrow(/twice/);
  });
});

describe("checkpoint comparison at scale", () => {
  // The comparison as first written: one bootstrapCI / pairedBootstrapTest per run, subset and metric, and one
  // stratifiedBootstrapCI / pairedStratifiedBootstrapTest per run and metric for the average, each scoring
  // resampled arrays. The counting implementation must give exactly their numbers.
  function reference(gold: readonly ProcessBenchGold[], runs: Array<{ id: string; predictions: Map<string, number | null> }>, baselineId: string, resamples: number, seed: number) {
    type Item = { label: number; prediction: number | null | undefined; subset: string };
    const metrics = ["f1", "acc_err", "acc_cor"] as const;
    const subsets = [...new Set(gold.map((g) => g.subset!))].sort((a, b) => a.localeCompare(b));
    const options = { resamples, seed };
    const metricOf = (metric: (typeof metrics)[number]) => (sample: readonly Item[]) => scorePredictedSolutions(sample)[metric];
    const items = new Map(runs.map((run) => [run.id, gold.map((g) => ({ label: g.label, prediction: run.predictions.get(g.id), subset: g.subset! }))]));
    const scope = (runId: string, subset: string | null) => items.get(runId)!.filter((item) => subset === null || item.subset === subset);
    const strata = (runId: string) => subsets.map((subset) => scope(runId, subset));
    const bounds = ({ lower, upper }: { lower: number; upper: number }) => ({ lower, upper });
    const ci = (runId: string, subset: string | null) =>
      Object.fromEntries(metrics.map((m) => [m, bounds(subset === null ? stratifiedBootstrapCI(strata(runId), meanOverStrata(metricOf(m)), options) : bootstrapCI(scope(runId, subset), metricOf(m), options))]));
    const delta = (runId: string, subset: string | null) =>
      Object.fromEntries(
        metrics.map((m) => {
          const test =
            subset === null
              ? pairedStratifiedBootstrapTest(strata(runId), strata(baselineId), meanOverStrata(metricOf(m)), options)
              : pairedBootstrapTest(scope(runId, subset), scope(baselineId, subset), metricOf(m), options);
          return [m, { estimate: test.estimate, lower: test.lower, upper: test.upper, pValue: test.pValue }];
        }),
      );
    return runs.map((run) => {
      const bySubset = subsets.map((s) => scorePredictedSolutions(scope(run.id, s)));
      const mean = (m: (typeof metrics)[number]) => bySubset.reduce((sum, score) => sum + score[m], 0) / bySubset.length;
      const counts = scorePredictedSolutions(scope(run.id, null));
      return {
        bySubset: Object.fromEntries(subsets.map((s, i) => [s, { ...bySubset[i]!, ci: ci(run.id, s) }])),
        average: { n: counts.n, n_error: counts.n_error, n_correct: counts.n_correct, f1: mean("f1"), acc_err: mean("acc_err"), acc_cor: mean("acc_cor"), ci: ci(run.id, null) },
        delta: run.id === baselineId ? null : { bySubset: Object.fromEntries(subsets.map((s) => [s, delta(run.id, s)])), average: delta(run.id, null) },
      };
    });
  }

  it("gives bit for bit the intervals, deltas and p-values of one bootstrap per run, scope and metric", () => {
    const rng = createRng("scale");
    // Subsets of very different sizes: "tiny" has two items (so it is kept at two in every stratified resample), "errors" has no error-free item.
    const sizes: Record<string, number> = { big: 180, mid: 60, tiny: 2, errors: 15 };
    const gold: ProcessBenchGold[] = Object.entries(sizes).flatMap(([subset, size]) =>
      Array.from({ length: size }, (_, i) => ({ id: `${subset}-${i}`, subset, label: subset !== "errors" && rng.nextInt(2) === 0 ? -1 : rng.nextInt(8) })),
    );
    // Interleave the subsets: gold order is file order, not grouped.
    const shuffled = [...gold].sort((a, b) => ((a.id.length * 7919 + a.id.charCodeAt(a.id.length - 1)) % 13) - ((b.id.length * 7919 + b.id.charCodeAt(b.id.length - 1)) % 13));
    const runs = [0.7, 0.4, 0.55].map((accuracy, r) => {
      const predictions = new Map<string, number | null>();
      for (const g of shuffled) {
        const roll = rng.nextFloat();
        if (roll < 0.05) continue; // missing
        predictions.set(g.id, roll < 0.1 ? null : roll < 0.1 + accuracy ? g.label : rng.nextInt(9) - 1);
      }
      return { id: `run-${r}`, predictions };
    });
    for (const baselineId of ["run-0", "run-2"]) {
      const fast = compareCheckpoints({ gold: shuffled, runs, baselineId, resamples: 150, seed: 11 });
      const slow = reference(shuffled, runs, baselineId, 150, 11);
      expect(fast.subsets).toEqual(["big", "errors", "mid", "tiny"]);
      fast.runs.forEach((run, r) => {
        expect(run.bySubset).toEqual(slow[r]!.bySubset);
        expect(run.average).toEqual(slow[r]!.average);
        expect(run.delta).toEqual(slow[r]!.delta);
      });
    }
  });

  it("compares 100,000 gold solutions (how fast: docs/benchmarks/web.md)", () => {
    const rng = createRng("large");
    const subsets = ["gsm8k", "math", "olympiadbench", "omnimath"];
    const gold: ProcessBenchGold[] = Array.from({ length: 100_000 }, (_, i) => ({ id: `s-${i}`, subset: subsets[i % 4]!, label: rng.nextInt(2) ? -1 : rng.nextInt(10) }));
    const run = (accuracy: number) => new Map(gold.map((g) => [g.id, rng.nextFloat() < accuracy ? g.label : rng.nextInt(11) - 1] as const));
    const result = compareCheckpoints({ gold, runs: [{ id: "a", predictions: run(0.8) }, { id: "b", predictions: run(0.6) }], baselineId: "b", seed: 0 });
    expect(result.gold).toBe(100_000);
    expect(result.runs[0]!.delta!.average.f1.pValue).toBe(0);
  });
});

describe("the benchmark summary's bootstrap statistic", () => {
  it("gives bit-for-bit the intervals of scoring re-identified resamples with scoreProcessBench", () => {
    // The summary used to score each resample by giving every drawn item its own id;
    // scorePredictedSolutions must reproduce it exactly so stored summaries stay identical.
    const rng = createRng("refactor");
    const items: ProcessBenchGold[] = Array.from({ length: 300 }, (_, i) => ({ id: `m-${i}`, label: rng.nextInt(3) === 0 ? -1 : rng.nextInt(6), subset: "m" }));
    const predictions = new Map<string, number | null>();
    for (const g of items) {
      const roll = rng.nextInt(10);
      if (roll === 0) continue; // missing
      predictions.set(g.id, roll === 1 ? null : roll < 6 ? g.label : rng.nextInt(6) - 1);
    }
    const legacy = (sample: readonly ProcessBenchGold[]) => {
      const relabelled: ProcessBenchGold[] = [];
      const predicted = new Map<string, number | null>();
      sample.forEach((item, i) => {
        relabelled.push({ ...item, id: `${item.id}#${i}` });
        if (predictions.has(item.id)) predicted.set(`${item.id}#${i}`, predictions.get(item.id)!);
      });
      return scoreProcessBench(relabelled, predicted).subsets.m?.f1 ?? 0;
    };
    const before = bootstrapCI(items, legacy, { resamples: 300, seed: 5 });
    const after = bootstrapCI(items.map((g) => ({ label: g.label, prediction: predictions.get(g.id) })), (s) => scorePredictedSolutions(s).f1, { resamples: 300, seed: 5 });
    expect(after).toEqual(before);
  });
});

describe("prediction disagreements", () => {
  it("lists the items two runs predict differently, with who was right; none and unparseable are the same", () => {
    expect(predictionDisagreements(gold, strong, weak)).toEqual([
      { id: "a-1", subset: "a", gold: 2, a: 2, b: 0, kind: "a_right" },
      { id: "a-2", subset: "a", gold: -1, a: 0, b: -1, kind: "b_right" },
      { id: "a-3", subset: "a", gold: 1, a: 1, b: null, kind: "a_right" },
      { id: "b-0", subset: "b", gold: 0, a: 0, b: 1, kind: "a_right" },
      { id: "b-1", subset: "b", gold: -1, a: -1, b: null, kind: "a_right" },
    ]);
    const wrong = new Map<string, number | null>([["a-1", 0], ["a-3", null]]);
    const other = new Map<string, number | null>([["a-1", 1]]);
    expect(predictionDisagreements(gold, wrong, other)).toEqual([{ id: "a-1", subset: "a", gold: 2, a: 0, b: 1, kind: "both_wrong" }]);
  });
});
