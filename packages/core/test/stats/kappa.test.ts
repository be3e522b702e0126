import { describe, expect, it } from "vitest";
import { cohensKappa, fleissKappa, fleissKappaFromLabels } from "../../src/stats";
import { InputError } from "../../src/errors/input-error";

/** Rater label arrays from a contingency table `table[a][b]` over `categories`. */
function fromTable(categories: string[], table: number[][]): { a: string[]; b: string[] } {
  const a: string[] = [];
  const b: string[] = [];
  table.forEach((row, i) =>
    row.forEach((count, j) => {
      for (let k = 0; k < count; k++) {
        a.push(categories[i]!);
        b.push(categories[j]!);
      }
    }),
  );
  return { a, b };
}

describe("Cohen's kappa", () => {
  it("matches the textbook 2×2 example", () => {
    // 50 items: both yes 20, both no 15, A yes/B no 5, A no/B yes 10.
    // p_o = (20 + 15)/50 = 0.7
    // A: yes 25, no 25; B: yes 30, no 20
    // p_e = (25·30 + 25·20)/50² = (750 + 500)/2500 = 0.5
    // κ = (0.7 − 0.5)/(1 − 0.5) = 0.4
    const { a, b } = fromTable(["yes", "no"], [
      [20, 5],
      [10, 15],
    ]);
    const r = cohensKappa(a, b);
    expect(r.observedAgreement).toBe(0.7);
    expect(r.expectedAgreement).toBe(0.5);
    expect(r.kappa).toBeCloseTo(0.4, 15);
    expect(r.items).toBe(50);
    expect(r.categories).toEqual(["yes", "no"]);
  });

  it("handles three categories", () => {
    // rows = rater A, columns = rater B, 50 items
    //        x   y   z  | A total
    //   x   14   3   3  | 20
    //   y    2  11   2  | 15
    //   z    4   1  10  | 15
    //  B:   20  15  15
    // p_o = (14 + 11 + 10)/50 = 0.7
    // p_e = (20·20 + 15·15 + 15·15)/2500 = 850/2500 = 0.34
    // κ = (0.7 − 0.34)/(1 − 0.34) = 0.36/0.66 = 6/11 ≈ 0.5455
    const { a, b } = fromTable(["x", "y", "z"], [
      [14, 3, 3],
      [2, 11, 2],
      [4, 1, 10],
    ]);
    const r = cohensKappa(a, b);
    expect(r.observedAgreement).toBe(0.7);
    expect(r.expectedAgreement).toBe(0.34);
    expect(r.kappa).toBeCloseTo(6 / 11, 15);
  });

  it("is 1 on perfect agreement, including the degenerate single-category case", () => {
    expect(cohensKappa(["P", "N", "P"], ["P", "N", "P"]).kappa).toBe(1);
    // One category only: p_o = p_e = 1, 0/0 by formula; documented as 1.
    const r = cohensKappa(["Positive", "Positive"], ["Positive", "Positive"]);
    expect(r.expectedAgreement).toBe(1);
    expect(r.kappa).toBe(1);
  });

  it("is 0 at chance level and negative below it", () => {
    // A: P P N N, B: P N P N → p_o = 2/4, p_e = (2·2 + 2·2)/16 = 0.5 → κ = 0
    expect(cohensKappa(["P", "P", "N", "N"], ["P", "N", "P", "N"]).kappa).toBe(0);
    // Always disagree: p_o = 0, p_e = 0.5 → κ = −1
    expect(cohensKappa(["P", "N"], ["N", "P"]).kappa).toBe(-1);
  });

  it("counts a category only one rater used", () => {
    // A: a a b, B: a a c → p_o = 2/3; p_e = (2·2 + 1·0 + 0·1)/9 = 4/9
    // κ = (2/3 − 4/9)/(1 − 4/9) = (2/9)/(5/9) = 0.4
    const r = cohensKappa(["a", "a", "b"], ["a", "a", "c"]);
    expect(r.categories).toEqual(["a", "b", "c"]);
    expect(r.kappa).toBeCloseTo(0.4, 15);
  });

  it("rejects unequal lengths and empty input", () => {
    expect(() => cohensKappa(["a"], ["a", "b"])).toThrow(InputError);
    expect(() => cohensKappa([], [])).toThrow(/at least one/);
  });
});

describe("Fleiss' kappa", () => {
  // Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories.
  const table = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];

  it("reproduces the worked example (κ ≈ 0.210)", () => {
    // Column totals 20, 28, 39, 21, 32 (sum 140 = 10·14)
    //   p_j = 0.143, 0.200, 0.279, 0.150, 0.229
    //   P̄_e = (20² + 28² + 39² + 21² + 32²)/140² = 4170/19600 = 417/1960 ≈ 0.212755
    // P_i = (Σ_j n_ij² − 14)/(14·13): Σ n_ij² per row = 196, 60, 70, 94, 74, 98, 58, 46, 66, 66
    //   numerators 182, 46, 56, 80, 60, 84, 44, 32, 52, 52 → sum 688
    //   P̄ = 688/(10·182) = 172/455 ≈ 0.378022
    // κ = (172/455 − 417/1960)/(1 − 417/1960); over 25480 = lcm(455, 1960):
    //   = (9632 − 5421)/(25480 − 5421) = 4211/20059 ≈ 0.209931
    const r = fleissKappa(table);
    expect(r.items).toBe(10);
    expect(r.raters).toBe(14);
    expect(r.expectedAgreement).toBeCloseTo(417 / 1960, 15);
    expect(r.observedAgreement).toBeCloseTo(172 / 455, 15);
    expect(r.kappa).toBeCloseTo(4211 / 20059, 14);
    expect(r.kappa.toFixed(3)).toBe("0.210");
    expect(r.categoryShares.map((p) => p.toFixed(3))).toEqual(["0.143", "0.200", "0.279", "0.150", "0.229"]);
  });

  it("gives the same result from raw labels", () => {
    const categories = ["c1", "c2", "c3", "c4", "c5"];
    // Expand each row to 14 labels, rotated so label order within an item varies.
    const ratings = table.map((row, i) => {
      const labels = row.flatMap((count, j) => Array.from({ length: count }, () => categories[j]!));
      return [...labels.slice(i), ...labels.slice(0, i)];
    });
    const r = fleissKappaFromLabels(ratings);
    expect(r.kappa).toBeCloseTo(4211 / 20059, 14);
    expect(r.raters).toBe(14);
  });

  it("is 1 on unanimity, including the single-category case", () => {
    // Two raters, perfect agreement on mixed categories → P̄ = 1, κ = 1.
    expect(fleissKappaFromLabels([["P", "P"], ["N", "N"], ["P", "P"]]).kappa).toBe(1);
    // Everyone always says Positive: P̄ = P̄_e = 1 → documented as 1.
    const r = fleissKappa([[3, 0], [3, 0]]);
    expect(r.expectedAgreement).toBe(1);
    expect(r.kappa).toBe(1);
  });

  it("goes negative when raters systematically split", () => {
    // 2 items, 2 raters, each item split 1/1: P_i = (1 + 1 − 2)/2 = 0 → P̄ = 0;
    // p = (0.5, 0.5) → P̄_e = 0.5 → κ = (0 − 0.5)/0.5 = −1
    expect(fleissKappa([[1, 1], [1, 1]]).kappa).toBe(-1);
  });

  it("validates the table with located errors", () => {
    expect(() => fleissKappa([])).toThrow(/at least one rated item/);
    expect(() => fleissKappa([[2, 1], [1, 1]])).toThrow(/record 1: every item must have the same number of ratings/);
    expect(() => fleissKappa([[1, 0], [1, 0]])).toThrow(/at least 2 ratings/);
    expect(() => fleissKappa([[1, 1], [1, 1, 0]])).toThrow(/record 1/);
    expect(() => fleissKappa([[1, 1], [-1, 3]])).toThrow(/non-negative integers/);
    expect(() => fleissKappa([[1.5, 0.5]])).toThrow(/non-negative integers/);
    expect(() => fleissKappaFromLabels([["a", "b"], ["a"]])).toThrow(/record 1: each item needs at least 2 raters/);
    expect(() => fleissKappaFromLabels([["a", "b"], ["a", "b", "c"]])).toThrow(/same number of raters/);
    expect(() => fleissKappaFromLabels([["a", "b"], ["a", "b", "c"]])).toThrow(InputError);
  });
});
