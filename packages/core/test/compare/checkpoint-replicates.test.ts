import { describe, expect, it } from "vitest";
import { checkpointOutcomeCounts, checkpointReplicates, compareCheckpointCounts, compareCheckpoints, goldSubset, packReplicates, unpackReplicates } from "../../src/compare/checkpoints";
import type { FirstErrorPrediction, ProcessBenchGold } from "../../src/processbench/metrics";
import { createRng } from "../../src/stats/random";

/** A random ProcessBench-like gold set over four subsets and runs of given accuracy. */
function world(n: number, seed: number) {
  const rng = createRng(seed);
  const subsets = ["gsm8k", "math", "olympiadbench", "omnimath"];
  const gold: ProcessBenchGold[] = Array.from({ length: n }, (_, i) => ({ id: `${subsets[i % 4]}-${i}`, label: rng.nextInt(3) === 0 ? -1 : rng.nextInt(6), subset: subsets[i % 4] }));
  const run = (accuracy: number) =>
    new Map<string, FirstErrorPrediction>(
      gold.flatMap((g): Array<[string, FirstErrorPrediction]> => {
        const u = rng.nextFloat();
        if (u < 0.02) return []; // missing
        if (u < 0.04) return [[g.id, null]]; // unparseable
        return [[g.id, rng.nextFloat() < accuracy ? g.label : rng.nextInt(7) - 1]];
      }),
    );
  return { gold, runs: [{ id: "a", predictions: run(0.8) }, { id: "b", predictions: run(0.6) }, { id: "c", predictions: run(0.7) }] };
}

describe("stored checkpoint replicates", () => {
  it("give the same comparison as drawing every run afresh, whichever runs have them", () => {
    const { gold, runs } = world(2_000, 3);
    const options = { resamples: 300, seed: "compare-7" };
    const fresh = compareCheckpoints({ gold, runs, baselineId: "b", ...options });
    const stored = new Map(runs.map((run) => [run.id, checkpointReplicates({ gold, predictions: run.predictions, ...options })]));
    expect(compareCheckpoints({ gold, runs, baselineId: "b", ...options, replicates: stored })).toEqual(fresh);
    // Only some runs stored: the rest are drawn, still the same numbers.
    expect(compareCheckpoints({ gold, runs, baselineId: "b", ...options, replicates: new Map([["a", stored.get("a")!]]) })).toEqual(fresh);
    expect(compareCheckpoints({ gold, runs, baselineId: "b", ...options, replicates: new Map([["b", stored.get("b")!], ["c", stored.get("c")!]]) })).toEqual(fresh);
  });

  it("with every run's outcome counts give the comparison without the gold items, number for number", () => {
    const { gold, runs } = world(3_000, 11);
    const options = { resamples: 250, seed: 17 };
    const fresh = compareCheckpoints({ gold, runs, baselineId: "c", ...options });
    const subsets = [...new Set(gold.map(goldSubset))].sort((a, b) => a.localeCompare(b));
    const subsetOf = gold.map((g) => subsets.indexOf(goldSubset(g)));
    const replicates = new Map(runs.map((run) => [run.id, checkpointReplicates({ gold, predictions: run.predictions, ...options })]));
    const counted = runs.map((run) => ({ id: run.id, counts: checkpointOutcomeCounts(gold, subsetOf, subsets.length, run.predictions) }));
    expect(counted[0]!.counts.missing).toBeGreaterThan(0);
    expect(counted[0]!.counts.unparseable).toBeGreaterThan(0);
    const fromCounts = compareCheckpointCounts({ subsets, gold: gold.length, runs: counted, baselineId: "c", ...options, replicates });
    expect(fromCounts).toEqual(fresh);
    // Bit for bit, not within toEqual's tolerance of -0/+0 and key order: the serialised results are identical.
    expect(JSON.stringify(fromCounts)).toBe(JSON.stringify(fresh));
    // Counts that do not cover the gold, or a run without replicates, are refused.
    expect(() => compareCheckpointCounts({ subsets, gold: gold.length + 1, runs: counted, baselineId: "c", ...options, replicates })).toThrow(/another gold set|do not cover/);
    expect(() => compareCheckpointCounts({ subsets, gold: gold.length, runs: counted, baselineId: "c", ...options, replicates: new Map([["a", replicates.get("a")!]]) })).toThrow(/run b has no replicates/);
  });

  it("are refused when drawn for another gold set, number of resamples or seed", () => {
    const { gold, runs } = world(400, 5);
    const replicates = new Map([["a", checkpointReplicates({ gold, predictions: runs[0]!.predictions, resamples: 100, seed: 1 })]]);
    expect(() => compareCheckpoints({ gold, runs, baselineId: "b", resamples: 100, seed: 2, replicates })).toThrow(/run a/);
    expect(() => compareCheckpoints({ gold, runs, baselineId: "b", resamples: 200, seed: 1, replicates })).toThrow(/run a/);
    expect(() => compareCheckpoints({ gold: gold.slice(1), runs, baselineId: "b", resamples: 100, seed: 1, replicates })).toThrow(/another gold set/);
  });

  it("pack into bytes and read back exactly; a block of the wrong size is refused", () => {
    const { gold, runs } = world(500, 9);
    const replicates = checkpointReplicates({ gold, predictions: runs[0]!.predictions, resamples: 120, seed: 4 });
    const bytes = packReplicates(replicates);
    expect(bytes.byteLength).toBe(5 * 3 * 120 * 8);
    const meta = { n: replicates.n, subsets: replicates.subsets, resamples: 120, seed: 4 };
    expect(unpackReplicates(bytes, meta)).toEqual(replicates);
    expect(() => unpackReplicates(bytes.subarray(8), meta)).toThrow(/bytes/);
  });
});
