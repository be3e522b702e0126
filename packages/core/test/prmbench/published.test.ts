import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PRMBENCH_CLASS_ORDER, PRMBENCH_CLASSES, PRMBENCH_CORRECT_CLASS, PRMBENCH_DIMENSIONS, PRMBENCH_F1_ONLY_CLASSES, prmbenchClass, PUBLISHED_PRMBENCH_PRMSCORE, type PrmbenchDimension } from "../../src";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/prmbench/prmbench-sample.jsonl");

describe("PRMBench's classes and published PRMScores", () => {
  it("names every class of the released data, in the tables' order, by dimension", () => {
    const released = new Set(readFileSync(fixture, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { classification: string }).classification));
    expect([...released].sort()).toEqual([...PRMBENCH_CLASS_ORDER].sort());
    expect(PRMBENCH_CLASS_ORDER.map((c) => PRMBENCH_CLASSES[c].abbreviation)).toEqual(["NR.", "NCL.", "ES.", "SC.", "DC.", "CI.", "PS.", "DR.", "MS."]);
    expect(PRMBENCH_CLASS_ORDER.map((c) => PRMBENCH_CLASSES[c].dimension)).toEqual(["simplicity", "simplicity", "soundness", "soundness", "soundness", "soundness", "sensitivity", "sensitivity", "sensitivity"]);
    expect(prmbenchClass("redundency")).toEqual({ abbreviation: "NR.", name: "Non-Redundancy", dimension: "simplicity" });
    expect(prmbenchClass(PRMBENCH_CORRECT_CLASS)).toBeNull();
    expect(prmbenchClass("toString")).toBeNull();
    expect([...PRMBENCH_F1_ONLY_CLASSES]).toEqual(["multi_solutions"]);
  });

  it("keeps each published row as printed: its dimension averages agree with its class figures up to their rounding", () => {
    expect(PUBLISHED_PRMBENCH_PRMSCORE).toHaveLength(25);
    expect(new Set(PUBLISHED_PRMBENCH_PRMSCORE.map((r) => r.model)).size).toBe(25);
    for (const row of PUBLISHED_PRMBENCH_PRMSCORE) {
      for (const dimension of Object.keys(PRMBENCH_DIMENSIONS) as PrmbenchDimension[]) {
        const classes = PRMBENCH_CLASS_ORDER.filter((c) => PRMBENCH_CLASSES[c].dimension === dimension);
        const mean = classes.reduce((sum, c) => sum + row.byClass[c], 0) / classes.length;
        // Each printed figure is rounded to 0.1: the mean of rounded figures is within 0.1 of the rounded mean.
        expect(Math.abs(mean - row.byDimension[dimension]), `${row.model} ${dimension}`).toBeLessThanOrEqual(0.1 + 1e-9);
      }
      expect(row.prmscore).toBeGreaterThan(0);
      expect(row.prmscore).toBeLessThanOrEqual(100);
      expect(Object.isFrozen(row)).toBe(true);
    }
    expect(PUBLISHED_PRMBENCH_PRMSCORE.find((r) => r.model === "Qwen2.5-Math-PRM-72B")).toMatchObject({ prmscore: 68.2, protocol: "discriminative-prm" });
  });
});
