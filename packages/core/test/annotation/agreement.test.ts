import { describe, expect, it } from "vitest";
import { annotationAgreement, type AgreementLabelRow, type AgreementSubmission, type AnnotationAgreementInput } from "../../src";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const items = [1, 2, 3, 4].map((n) => ({ itemId: `i${n}`, solutionId: `t${n}`, externalId: `x-${n}`, position: n - 1, adjudicated: n === 2 }));
const annotators = [
  { id: "a", name: "Ada" },
  { id: "b", name: "Ben" },
  { id: "c", name: "Cy" },
];

/** One annotator's ratings of one item's chunks, all written at `minute`. */
function rated(itemId: string, annotatorId: string, ratings: number[], minute = 0, source = "annotation"): AgreementLabelRow[] {
  return ratings.map((rating, chunkIndex) => ({ itemId, chunkId: `${itemId}-c${chunkIndex}`, chunkIndex, annotatorId, rating, createdAt: at(minute), source }));
}

describe("annotation agreement", () => {
  it("rating scheme: chunks are units; Cohen and Fleiss match the hand-computed kappas", () => {
    const input: AnnotationAgreementInput = {
      scheme: "rating",
      annotatorsPerItem: 2,
      items,
      annotators,
      labels: [
        ...rated("i1", "a", [1, 1, -1]),
        ...rated("i1", "b", [1, -1, -1]),
        ...rated("i2", "a", [1, 0]),
        // b first said -1 on chunk 0 of item 2, then corrected it after an undo: the latest row counts.
        ...rated("i2", "b", [-1, 0], 1),
        ...rated("i2", "b", [1, 0], 5),
        // An adjudication is not an annotator's opinion.
        ...rated("i2", "c", [-1, -1], 9, "adjudication"),
      ],
      submissions: [],
    };
    const result = annotationAgreement(input);
    expect(result.unit).toBe("chunk");
    expect(result.ratedUnits).toBe(5);
    // a = 1,1,-1,1,0; b = 1,-1,-1,1,0. p_o = 4/5; p_e = (3·2 + 1·2 + 1·1)/25 = 9/25; κ = (0.8 − 0.36)/0.64.
    expect(result.cohen).toHaveLength(1);
    expect(result.cohen[0]).toMatchObject({ a: { id: "a", name: "Ada" }, b: { id: "b", name: "Ben" }, items: 5 });
    expect(result.cohen[0]!.observedAgreement).toBeCloseTo(0.8, 12);
    expect(result.cohen[0]!.expectedAgreement).toBeCloseTo(0.36, 12);
    expect(result.cohen[0]!.kappa).toBeCloseTo(0.6875, 12);
    // Fleiss: P̄ = 4/5; shares 5/10, 3/10, 2/10 → P̄e = 0.38; κ = 0.42 / 0.62 = 21/31.
    expect(result.fleiss).toMatchObject({ items: 5, raters: 2 });
    expect(result.fleiss!.observedAgreement).toBeCloseTo(0.8, 12);
    expect(result.fleiss!.expectedAgreement).toBeCloseTo(0.38, 12);
    expect(result.fleiss!.kappa).toBeCloseTo(21 / 31, 12);
    expect(result.disagreements).toEqual([
      {
        itemId: "i1",
        solutionId: "t1",
        externalId: "x-1",
        position: 0,
        chunkIndex: 1,
        adjudicated: false,
        ratings: [
          { annotatorId: "a", name: "Ada", rating: 1, firstErrorIndex: null },
          { annotatorId: "b", name: "Ben", rating: -1, firstErrorIndex: null },
        ],
      },
    ]);
  });

  it("rating scheme: Fleiss only counts units with exactly k ratings, and pairs without a shared unit are left out", () => {
    const result = annotationAgreement({
      scheme: "rating",
      annotatorsPerItem: 2,
      items,
      annotators,
      labels: [...rated("i1", "a", [1, -1]), ...rated("i1", "b", [1, -1]), ...rated("i3", "c", [1, 1, 1])],
      submissions: [],
    });
    expect(result.ratedUnits).toBe(5);
    expect(result.fleiss).toMatchObject({ items: 2, raters: 2, kappa: 1 });
    expect(result.cohen.map((p) => [p.a.id, p.b.id])).toEqual([["a", "b"]]);
    expect(result.disagreements).toEqual([]);
  });

  it("no Fleiss kappa with one annotator per item", () => {
    const result = annotationAgreement({ scheme: "rating", annotatorsPerItem: 1, items, annotators, labels: rated("i1", "a", [1, -1]), submissions: [] });
    expect(result.fleiss).toBeNull();
    expect(result.cohen).toEqual([]);
  });

  it("first-error scheme: solutions are units and the pick is the category", () => {
    const picks: Array<[string, number, number, number]> = [
      ["i1", 2, 2, 2],
      ["i2", -1, -1, 1],
      ["i3", 0, 1, 1],
      ["i4", -1, -1, -1],
    ];
    const submissions: AgreementSubmission[] = picks.flatMap(([itemId, a, b, c]) => [
      { itemId, annotatorId: "a", firstErrorIndex: a },
      { itemId, annotatorId: "b", firstErrorIndex: b },
      { itemId, annotatorId: "c", firstErrorIndex: c },
    ]);
    // A submission without a recorded pick falls back to its ratings: the first -1.
    submissions[0] = { itemId: "i1", annotatorId: "a", firstErrorIndex: null };
    const result = annotationAgreement({
      scheme: "first_error",
      annotatorsPerItem: 3,
      items,
      annotators,
      labels: rated("i1", "a", [1, 1, -1, 1]),
      submissions,
    });
    expect(result.unit).toBe("solution");
    // P_i = 1, 1/3, 1/3, 1 → P̄ = 2/3; shares 3/12, 5/12, 3/12, 1/12 → P̄e = 44/144; κ = 13/25.
    expect(result.fleiss).toMatchObject({ items: 4, raters: 3 });
    expect(result.fleiss!.observedAgreement).toBeCloseTo(2 / 3, 12);
    expect(result.fleiss!.expectedAgreement).toBeCloseTo(44 / 144, 12);
    expect(result.fleiss!.kappa).toBeCloseTo(13 / 25, 12);
    // a = 2,-1,0,-1 vs b = 2,-1,1,-1: p_o = 3/4, p_e = 5/16, κ = 7/11.
    const ab = result.cohen.find((p) => p.a.id === "a" && p.b.id === "b")!;
    expect(ab.kappa).toBeCloseTo(7 / 11, 12);
    expect(result.cohen).toHaveLength(3);
    expect(result.disagreements.map((d) => [d.itemId, d.chunkIndex, d.adjudicated])).toEqual([
      ["i2", null, true],
      ["i3", null, false],
    ]);
    expect(result.disagreements[1]!.ratings).toEqual([
      { annotatorId: "a", name: "Ada", rating: null, firstErrorIndex: 0 },
      { annotatorId: "b", name: "Ben", rating: null, firstErrorIndex: 1 },
      { annotatorId: "c", name: "Cy", rating: null, firstErrorIndex: 1 },
    ]);
  });
});
