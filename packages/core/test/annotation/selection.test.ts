import { describe, expect, it } from "vitest";
import { sampleSolutionIds, stratifiedSample } from "../../src";

const ids = Array.from({ length: 40 }, (_, i) => `t${String(i).padStart(2, "0")}`);

describe("seeded selection of solutions for a queue", () => {
  it("a random sample depends on the candidate set and the seed only, not on the order rows arrived in", () => {
    const sample = sampleSolutionIds(ids, 10, 7);
    expect(sample).toHaveLength(10);
    expect(new Set(sample).size).toBe(10);
    expect(sampleSolutionIds([...ids].reverse(), 10, 7)).toEqual(sample);
    expect(sampleSolutionIds(ids, 10, 8)).not.toEqual(sample);
    for (const id of sample) expect(ids).toContain(id);
  });

  it("a sample larger than the candidates takes them all, and duplicates count once", () => {
    expect(sampleSolutionIds(["b", "a", "a"], 5, 1).sort()).toEqual(["a", "b"]);
    expect(sampleSolutionIds([], 5, 1)).toEqual([]);
    expect(() => sampleSolutionIds(ids, -1, 1)).toThrow(RangeError);
  });

  it("a stratified sample draws perStratum from each stratum, all of a small one, and interleaves them reproducibly", () => {
    const candidates = ids.map((id, i) => ({ id, stratum: i < 5 ? "negative" : "positive" }));
    const sample = stratifiedSample(candidates, 8, "queue-seed");
    expect(sample.strata).toEqual([
      { stratum: "negative", candidates: 5, drawn: 5 },
      { stratum: "positive", candidates: 35, drawn: 8 },
    ]);
    expect(sample.ids).toHaveLength(13);
    expect(new Set(sample.ids).size).toBe(13);
    expect(sample.ids.filter((id) => Number(id.slice(1)) < 5)).toHaveLength(5);
    expect(stratifiedSample([...candidates].reverse(), 8, "queue-seed")).toEqual(sample);
    // Interleaved: the five negatives are not all at the front.
    expect(sample.ids.slice(0, 5).every((id) => Number(id.slice(1)) < 5)).toBe(false);
  });
});
