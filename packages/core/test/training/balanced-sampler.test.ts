import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codePointLength, selectBalancedTrainingSet, type TrainingCandidate } from "../../src/training";
import { InputError } from "../../src/errors/input-error";

interface Example extends TrainingCandidate {
  id: string;
}

function make(label: TrainingCandidate["label"], count: number, promptLength = 10, prefix = label[0]!): Example[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, label, prompt: "x".repeat(promptLength) }));
}

const ids = (items: readonly Example[]) => items.map((x) => x.id);

describe("balanced training-set selection", () => {
  it("keeps the whole minority and downsamples the majority to its size", () => {
    // 30 Positive, 8 Negative → 8 + 8 selected; every Negative kept.
    const items = [...make("Positive", 30), ...make("Negative", 8)];
    const { items: selected, report } = selectBalancedTrainingSet(items, { seed: 1 });
    expect(report).toEqual({
      before: { positive: 30, negative: 8 },
      filteredOut: { tooShort: 0, tooLong: 0 },
      eligible: { positive: 30, negative: 8 },
      after: { positive: 8, negative: 8 },
      seed: 1,
    });
    expect(selected).toHaveLength(16);
    expect(selected.filter((x) => x.label === "Negative").map((x) => x.id).sort()).toEqual(ids(make("Negative", 8)).sort());
    expect(new Set(ids(selected)).size).toBe(16);
  });

  it("filters by length before balancing", () => {
    // Positive: 10 of length 5 (too short), 10 of length 50, 2 of length 500 (too long)
    // Negative: 3 of length 5 (too short), 6 of length 50
    // Eligible: 10 Positive, 6 Negative → 6 + 6. Had we balanced first (min(22, 9) = 9
    // per class) and filtered after, the set would be 10·9/22 ≈ 4 : 6 again.
    const items = [
      ...make("Positive", 10, 5, "Ps"),
      ...make("Positive", 10, 50, "Pm"),
      ...make("Positive", 2, 500, "Pl"),
      ...make("Negative", 3, 5, "Ns"),
      ...make("Negative", 6, 50, "Nm"),
    ];
    const { items: selected, report } = selectBalancedTrainingSet(items, { seed: "f", minLength: 10, maxLength: 100 });
    expect(report.before).toEqual({ positive: 22, negative: 9 });
    expect(report.filteredOut).toEqual({ tooShort: 13, tooLong: 2 });
    expect(report.eligible).toEqual({ positive: 10, negative: 6 });
    expect(report.after).toEqual({ positive: 6, negative: 6 });
    expect(selected.every((x) => x.prompt.length === 50)).toBe(true);
  });

  it("treats both bounds as inclusive", () => {
    const items = [
      ...make("Positive", 1, 9, "a"),
      ...make("Positive", 1, 10, "b"),
      ...make("Negative", 1, 20, "c"),
      ...make("Negative", 1, 21, "d"),
    ];
    const { items: selected, report } = selectBalancedTrainingSet(items, { seed: 0, minLength: 10, maxLength: 20 });
    expect(report.filteredOut).toEqual({ tooShort: 1, tooLong: 1 });
    expect(ids(selected).sort()).toEqual(["b0", "c0"]);
  });

  it("measures with the injected length function, code points by default", () => {
    // "𝑥" is one code point but two UTF-16 units: by default it has length 1.
    expect(codePointLength("𝑥+1")).toBe(3);
    const items: Example[] = [
      { id: "p", label: "Positive", prompt: "𝑥𝑥𝑥" },
      { id: "n", label: "Negative", prompt: "one two three four" },
    ];
    expect(selectBalancedTrainingSet(items, { seed: 0, maxLength: 3 }).report.filteredOut.tooLong).toBe(1);
    // Counting words instead: "one two three four" = 4 words > 3, "𝑥𝑥𝑥" = 1 word.
    const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
    const byWords = selectBalancedTrainingSet(items, { seed: 0, maxLength: 3, length: words });
    expect(byWords.report.filteredOut.tooLong).toBe(1);
    expect(byWords.report.eligible).toEqual({ positive: 1, negative: 0 });
  });

  it("returns an empty selection, not an error, when a class is empty after filtering", () => {
    const items = [...make("Positive", 5, 10), ...make("Negative", 4, 1000)];
    const { items: selected, report } = selectBalancedTrainingSet(items, { seed: 3, maxLength: 100 });
    expect(selected).toEqual([]);
    expect(report).toEqual({
      before: { positive: 5, negative: 4 },
      filteredOut: { tooShort: 0, tooLong: 4 },
      eligible: { positive: 5, negative: 0 },
      after: { positive: 0, negative: 0 },
      seed: 3,
    });
    expect(selectBalancedTrainingSet([], { seed: 3 }).items).toEqual([]);
  });

  it("is deterministic per seed, order included, and varies with the seed", () => {
    const items = [...make("Positive", 100), ...make("Negative", 20)];
    const a = selectBalancedTrainingSet(items, { seed: 42 });
    expect(ids(selectBalancedTrainingSet(items, { seed: 42 }).items)).toEqual(ids(a.items));
    const b = selectBalancedTrainingSet(items, { seed: 43 });
    // C(100, 20) subsets: two seeds picking the same Positive subset is negligible.
    const positives = (r: typeof a) => ids(r.items.filter((x) => x.label === "Positive")).sort();
    expect(positives(b)).not.toEqual(positives(a));
  });

  it("shuffles the output instead of returning the classes in blocks", () => {
    const items = [...make("Positive", 50), ...make("Negative", 50)];
    const { items: selected } = selectBalancedTrainingSet(items, { seed: 5 });
    const firstHalf = selected.slice(0, 50).filter((x) => x.label === "Positive").length;
    // A block order would put 50 (or 0) Positive items in the first half.
    expect(firstHalf).toBeGreaterThan(10);
    expect(firstHalf).toBeLessThan(40);
  });

  it("validates labels, bounds and the length function", () => {
    const bad = [{ id: "x", label: "positive", prompt: "p" }] as unknown as Example[];
    expect(() => selectBalancedTrainingSet(bad, { seed: 1 })).toThrow(InputError);
    expect(() => selectBalancedTrainingSet(bad, { seed: 1 })).toThrow(/record 0, field "label"/);
    expect(() => selectBalancedTrainingSet([], { seed: 1, minLength: 5, maxLength: 4 })).toThrow(/must not exceed/);
    expect(() => selectBalancedTrainingSet([], { seed: 1, minLength: -1 })).toThrow(/non-negative/);
    expect(() => selectBalancedTrainingSet([], { seed: 0.5 })).toThrow(/seed/);
    expect(() => selectBalancedTrainingSet(make("Positive", 1), { seed: 1, maxLength: 5, length: () => Number.NaN })).toThrow(
      /length function returned NaN/,
    );
  });

  it("property: equal class counts = min(eligible counts), all drawn from the input", () => {
    const example = fc.record({
      label: fc.constantFrom("Positive" as const, "Negative" as const),
      prompt: fc.string({ maxLength: 30 }),
    });
    fc.assert(
      fc.property(
        fc.array(example, { maxLength: 60 }),
        fc.integer(),
        fc.option(fc.integer({ min: 0, max: 15 }), { nil: undefined }),
        fc.option(fc.integer({ min: 15, max: 30 }), { nil: undefined }),
        (items, seed, minLength, maxLength) => {
          const { items: selected, report } = selectBalancedTrainingSet(items, { seed, minLength, maxLength });
          const fits = (x: TrainingCandidate) => {
            const n = codePointLength(x.prompt);
            return (minLength === undefined || n >= minLength) && (maxLength === undefined || n <= maxLength);
          };
          const eligiblePos = items.filter((x) => fits(x) && x.label === "Positive").length;
          const eligibleNeg = items.filter((x) => fits(x) && x.label === "Negative").length;
          const k = Math.min(eligiblePos, eligibleNeg);
          expect(report.eligible).toEqual({ positive: eligiblePos, negative: eligibleNeg });
          expect(report.after).toEqual({ positive: k, negative: k });
          expect(selected.filter((x) => x.label === "Positive")).toHaveLength(k);
          expect(selected.filter((x) => x.label === "Negative")).toHaveLength(k);
          expect(report.filteredOut.tooShort + report.filteredOut.tooLong + eligiblePos + eligibleNeg).toBe(items.length);
          // Every selected object is an input object that passes the filters, none twice.
          expect(new Set(selected).size).toBe(selected.length);
          for (const x of selected) {
            expect(items).toContain(x);
            expect(fits(x)).toBe(true);
          }
        },
      ),
    );
  });
});
