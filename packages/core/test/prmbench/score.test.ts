import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { figuresOf, goldStepLabels, itemConfusion, itemQuirks, parsePrmbenchRecord, PRMBENCH_QUIRKS, prmbenchItems, scorePrmbench, type PrmbenchItem, type PrmbenchRecord } from "../../src";

const FIXTURES = path.join(import.meta.dirname, "../fixtures/prmbench");
const lines = (file: string) => readFileSync(path.join(FIXTURES, file), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown);

const record = (classification: string, idx: string, process: string[], errorSteps: number[], original = process): PrmbenchRecord =>
  parsePrmbenchRecord(
    { original_question: `q ${idx}`, modified_question: `q' ${idx}`, original_process: original, modified_process: process, error_steps: errorSteps, idx, classification },
    { file: "t.jsonl", line: 1, record: 0 },
  );

describe("PRMBench items, as the evaluator builds them", () => {
  it("names items <classification>_<idx> and adds one all-correct item per redundancy record, first occurrence winning", () => {
    const { items, repeated } = prmbenchItems([
      record("circular", "p1", ["a", "b"], [2]),
      record("redundency", "p1", ["a", "a again", "b"], [2], ["a", "b"]),
      record("redundency", "p1", ["x"], [1]),
      record("circular", "p2", ["a", "b", "c"], [4]),
    ]);
    expect(items.map((i) => i.id)).toEqual(["circular_p1", "correct_p1", "redundency_p1", "circular_p2"]);
    expect(items[1]).toEqual({ id: "correct_p1", classification: "correct", question: "q p1", steps: ["a", "b"], errorSteps: [] });
    expect(items[2]!.steps).toEqual(["a", "a again", "b"]);
    expect(repeated).toEqual(["redundency_p1"]);
    expect(itemQuirks(items[3]!)).toEqual([PRMBENCH_QUIRKS.errorStepPastEnd]);
    expect(goldStepLabels(items[3]!)).toEqual([true, true, true]);
    expect(goldStepLabels(items[0]!)).toEqual([true, false]);
  });
});

describe("PRMBench score", () => {
  it("counts step by step over the prediction's labels: a correct step is the positive class", () => {
    // Steps 1..5, errors at 2 and 4; labels for 4 steps: the 5th step is not counted.
    expect(itemConfusion([2, 4], [true, false, true, true])).toEqual({ TP: 2, FP: 1, TN: 1, FN: 0 });
    // Labels longer than the steps count as correct steps, as in the evaluator's loop over the labels.
    expect(itemConfusion([1], [false, true, true])).toEqual({ TP: 2, FP: 0, TN: 1, FN: 0 });
    // An error step past the last step labels nothing.
    expect(itemConfusion([3], [true, false])).toEqual({ TP: 1, FP: 0, TN: 0, FN: 1 });
  });

  it("matches hand-computed counts: totals over modified items only, the all-correct item in its own class, a missing id left out, a class without negative steps", () => {
    const items: PrmbenchItem[] = [
      { id: "correct_a", classification: "correct", question: "q", steps: ["s1", "s2", "s3"], errorSteps: [] },
      { id: "circular_a", classification: "circular", question: "q", steps: ["s1", "s2", "s3", "s4"], errorSteps: [2, 3] },
      { id: "circular_b", classification: "circular", question: "q", steps: ["s1", "s2"], errorSteps: [2, 5] },
      { id: "multi_a", classification: "multi", question: "q", steps: ["s1", "s2", "s3"], errorSteps: [] },
      { id: "multi_b", classification: "multi", question: "q", steps: ["s1"], errorSteps: [] },
    ];
    const scoring = scorePrmbench(items, [
      { id: "correct_a", labels: [true, false, true] }, // correct: TP 2, FN 1
      { id: "circular_a", labels: [true, false, true, false] }, // TP 1 (s1), TN 1 (s2), FP 1 (s3), FN 1 (s4)
      { id: "circular_b", labels: [false] }, // shorter than the steps: FN 1 (s1); s2 not counted
      { id: "multi_a", labels: [true, true, false] }, // TP 2, FN 1
      { id: "nobody", labels: [true] },
      { id: "circular_a", labels: [false, false, false, false] }, // repeated: ignored
    ]);
    expect(scoring.missing).toEqual(["multi_b"]);
    expect(scoring.unknown).toEqual(["nobody"]);
    expect(scoring.repeated).toEqual(["circular_a"]);
    expect(scoring.counts.total).toEqual({ TP: 3, FP: 1, TN: 1, FN: 3 });
    expect(scoring.counts.byClass).toEqual({ circular: { TP: 1, FP: 1, TN: 1, FN: 2 }, correct: { TP: 2, FP: 0, TN: 0, FN: 1 }, multi: { TP: 2, FP: 0, TN: 0, FN: 1 } });
    // Totals: P = 3/4, R = 3/6 → F1 = 0.6; negative P = 1/4, R = 1/2 → 1/3; PRMScore their mean.
    const { score } = scoring;
    expect(score.f1).toBeCloseTo(0.6, 15);
    expect(score.negative_f1).toBeCloseTo(1 / 3, 15);
    expect(score.prmscore).toBeCloseTo(0.5 * 0.6 + 0.5 / 3, 15);
    expect(score.n).toBe(3);
    // A class without negative steps: negative recall has no denominator (-1); negative precision is 0 (TN 0 of FN 1); F1 of 0 and -1 is 0.
    expect(score.by_class.multi).toEqual({ prmscore: 0.5 * (2 * (1 * (2 / 3)) / (1 + 2 / 3)) + 0.5 * 0, f1: (2 * 1 * (2 / 3)) / (1 + 2 / 3), negative_f1: 0, n: 1 });
    expect(score.by_class.correct!.n).toBe(1);
    // Nothing at all: every ratio is -1, F1 of -1 and -1 is 2·1/(-2) = -1.
    expect(figuresOf({ TP: 0, FP: 0, TN: 0, FN: 0 }, 0)).toEqual({ prmscore: -1, f1: -1, negative_f1: -1, n: 0 });
  });

  it("gives what PRMBench's own evaluator gives on released records (fixture computed by running evaluate_function)", () => {
    const records = lines("prmbench-sample.jsonl").map((value, i) => parsePrmbenchRecord(value, { file: "prmbench-sample.jsonl", line: i + 1, record: i }));
    const { items, repeated } = prmbenchItems(records);
    expect(items).toHaveLength(30);
    expect(repeated).toEqual(["multi_solutions_prm_test_p2_863"]);
    const predictions = lines("predictions-sample.jsonl") as Array<{ id: string; labels: boolean[] }>;
    const { score, missing, unknown } = scorePrmbench(items, predictions);
    expect(missing).toHaveLength(2);
    expect(unknown).toEqual(["nonexistent_item_1"]);
    const official = JSON.parse(readFileSync(path.join(FIXTURES, "expected-official.json"), "utf8")) as {
      prmscore: number;
      f1: number;
      negative_f1: number;
      by_class: Record<string, { prmscore: number; f1: number; negative_f1: number }>;
    };
    expect({ prmscore: score.prmscore, f1: score.f1, negative_f1: score.negative_f1 }).toEqual({ prmscore: official.prmscore, f1: official.f1, negative_f1: official.negative_f1 });
    expect(Object.keys(score.by_class)).toEqual(Object.keys(official.by_class));
    for (const [name, figures] of Object.entries(official.by_class)) {
      const ours = score.by_class[name]!;
      expect({ prmscore: ours.prmscore, f1: ours.f1, negative_f1: ours.negative_f1 }, name).toEqual(figures);
    }
  });

  it("a malformed record is an error naming its line and field", () => {
    const at = { file: "bad.jsonl", line: 7, record: 6 };
    expect(() => parsePrmbenchRecord({ original_question: "q", modified_question: "q", original_process: ["a"], modified_process: ["a"], idx: "1", classification: "circular" }, at)).toThrow(/bad\.jsonl:7.*error_steps/);
    expect(() => parsePrmbenchRecord({ original_question: "q", modified_question: "q", original_process: ["a"], modified_process: [], error_steps: [], idx: "1", classification: "c" }, at)).toThrow(/modified_process/);
    expect(() => parsePrmbenchRecord({ original_question: "q", modified_question: "q", original_process: ["a"], modified_process: ["a"], error_steps: [0], idx: "1", classification: "c" }, at)).toThrow(/1-based/);
  });
});
