import { describe, expect, it } from "vitest";
import { binaryMetrics, confusionMatrix, negativeF1, type LabeledPrediction } from "../../src/stats";
import { InputError } from "../../src/errors/input-error";

function items(spec: Array<[LabeledPrediction["gold"], LabeledPrediction["predicted"], number]>): LabeledPrediction[] {
  return spec.flatMap(([gold, predicted, n]) => Array.from({ length: n }, () => ({ gold, predicted })));
}

describe("confusion matrix and binary metrics", () => {
  // gold Positive: 6 → Positive, 2 → Negative, 1 → unparseable (support 9)
  // gold Negative: 3 → Negative, 2 → Positive, 1 → unparseable (support 6)
  const fixture = items([
    ["Positive", "Positive", 6],
    ["Positive", "Negative", 2],
    ["Positive", "unparseable", 1],
    ["Negative", "Negative", 3],
    ["Negative", "Positive", 2],
    ["Negative", "unparseable", 1],
  ]);

  it("counts gold × predicted, unparseable in its own column", () => {
    const m = confusionMatrix(fixture);
    expect(m.total).toBe(15);
    expect(m.counts).toEqual({
      Positive: { Positive: 6, Negative: 2, unparseable: 1 },
      Negative: { Positive: 2, Negative: 3, unparseable: 1 },
    });
  });

  it("scores the Negative class with unparseable as a miss", () => {
    const m = binaryMetrics(confusionMatrix(fixture));
    // Negative: TP = 3; predicted Negative = 3 + 2 (gold Positive) = 5 — the
    // unparseable ones are no prediction; support = 3 + 2 + 1 = 6.
    // precision = 3/5 = 0.6, recall = 3/6 = 0.5, F1 = 2·3/(5 + 6) = 6/11
    //   (check: 2·0.6·0.5 / 1.1 = 0.6/1.1 = 6/11).
    expect(m.negative).toEqual({ precision: 0.6, recall: 0.5, f1: 6 / 11, support: 6, predicted: 5 });
    // Positive: TP = 6; predicted = 6 + 2 = 8; support = 9.
    // precision = 6/8 = 0.75, recall = 6/9 = 2/3, F1 = 12/17.
    expect(m.positive.precision).toBe(0.75);
    expect(m.positive.recall).toBeCloseTo(2 / 3, 15);
    expect(m.positive.f1).toBeCloseTo(12 / 17, 15);
    expect(m.positive.support).toBe(9);
    // accuracy = (6 + 3) / 15 = 0.6: both unparseable count as wrong.
    expect(m.accuracy).toBe(0.6);
    expect(m.unparseable).toBe(2);
    expect(m.unparseableRate).toBeCloseTo(2 / 15, 15);
    expect(negativeF1(fixture)).toBe(6 / 11);
  });

  it("returns 0 for every ratio of an empty set", () => {
    const m = binaryMetrics(confusionMatrix([]));
    expect(m).toEqual({
      accuracy: 0,
      negative: { precision: 0, recall: 0, f1: 0, support: 0, predicted: 0 },
      positive: { precision: 0, recall: 0, f1: 0, support: 0, predicted: 0 },
      unparseable: 0,
      unparseableRate: 0,
      total: 0,
    });
  });

  it("returns 0 for Negative metrics when there is no Negative at all", () => {
    // 4 gold Positive, all predicted Positive: Negative support 0, predicted 0.
    const m = binaryMetrics(confusionMatrix(items([["Positive", "Positive", 4]])));
    expect(m.accuracy).toBe(1);
    expect(m.negative).toEqual({ precision: 0, recall: 0, f1: 0, support: 0, predicted: 0 });
    expect(m.positive).toEqual({ precision: 1, recall: 1, f1: 1, support: 4, predicted: 4 });
  });

  it("does not reward an all-unparseable judge", () => {
    // 3 gold Negative, all unparseable: recall 0/3; precision 0/0 → 0; accuracy 0/3.
    const m = binaryMetrics(confusionMatrix(items([["Negative", "unparseable", 3]])));
    expect(m.negative).toEqual({ precision: 0, recall: 0, f1: 0, support: 3, predicted: 0 });
    expect(m.accuracy).toBe(0);
    expect(m.unparseableRate).toBe(1);
  });

  it("handles predicted-but-never-right: precision 0 with a non-zero denominator", () => {
    // 2 gold Positive predicted Negative, 1 gold Negative predicted Positive:
    // Negative precision 0/2, recall 0/1, F1 = 0/(2 + 1) = 0.
    const m = binaryMetrics(
      confusionMatrix(
        items([
          ["Positive", "Negative", 2],
          ["Negative", "Positive", 1],
        ]),
      ),
    );
    expect(m.negative).toEqual({ precision: 0, recall: 0, f1: 0, support: 1, predicted: 2 });
  });

  it("rejects labels outside the vocabulary with the item's index", () => {
    const bad = [
      { gold: "Positive", predicted: "Positive" },
      { gold: "Positive", predicted: "positive" },
    ] as unknown as LabeledPrediction[];
    expect(() => confusionMatrix(bad)).toThrow(InputError);
    expect(() => confusionMatrix(bad)).toThrow(/record 1, field "predicted"/);
    expect(() => confusionMatrix([{ gold: "unparseable" } as unknown as LabeledPrediction])).toThrow(/gold label/);
  });
});
