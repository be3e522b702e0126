import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  firstErrorIndex,
  labelsFromStoredValues,
  runAnnotationStrategy,
  storedSolutionValues,
  type AbsQEvidence,
  type AnnotationStrategy,
  type Label,
  type StrategyOutcome,
} from "../../src";

/**
 * The cheaper strategies against `fixed` on random rollout-outcome tables: a
 * table says, for every prefix 0..k-1 and seed 0..M-1, whether that rollout
 * reaches the right answer — what the same seeds give every strategy.
 */
interface Table {
  k: number;
  m: number;
  batch: number;
  finalCorrect: boolean;
  outcomes: boolean[][];
}

const table: fc.Arbitrary<Table> = fc
  .record({ k: fc.integer({ min: 1, max: 9 }), m: fc.integer({ min: 1, max: 16 }), batch: fc.integer({ min: 1, max: 6 }), finalCorrect: fc.boolean(), density: fc.double({ min: 0, max: 0.6, noNaN: true }) })
  .chain(({ k, m, batch, finalCorrect, density }) =>
    fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }).map((u) => u < density), { minLength: m, maxLength: m }), { minLength: k, maxLength: k }).map((outcomes) => ({ k, m, batch, finalCorrect, outcomes })),
  );

async function run(strategy: AnnotationStrategy, t: Table, evidence: AbsQEvidence): Promise<{ outcome: StrategyOutcome; labels: Label[]; drawn: number }> {
  let drawn = 0;
  const sample = async (length: number, indices: readonly number[]) => {
    if (length < 0 || length >= t.k) throw new Error(`prefix ${length} sampled; only 0..${t.k - 1} have rollouts`);
    drawn += indices.length;
    return indices.map((i) => t.outcomes[length]![i]!);
  };
  const outcome = await runAnnotationStrategy(strategy, t.k, t.finalCorrect, { rollouts: t.m, batch: t.batch, evidence }, sample);
  // What the annotate pipeline stores: every sampled prefix's estimate, and the solution's own outcome as prefix k.
  const rows = [...outcome.estimates.map((e) => ({ prefixLength: e.prefixLength, qValue: e.correct / e.rollouts })), { prefixLength: t.k, qValue: t.finalCorrect ? 1 : 0 }];
  const labels = labelsFromStoredValues({ rule: "abs-q", evidence }, storedSolutionValues(rows, t.k))!;
  return { outcome, labels, drawn };
}

/** Per chunk i, whether prefix i+1 had a success among its M seeds (the last: the final answer). */
const ownSuccess = (t: Table) => Array.from({ length: t.k }, (_, i) => (i === t.k - 1 ? t.finalCorrect : t.outcomes[i + 1]!.some(Boolean)));
const isMonotone = (success: boolean[]) => success.indexOf(false) === -1 || !success.slice(success.indexOf(false)).some(Boolean);

describe("annotation strategies against fixed on the same seeds", () => {
  it("fixed stores Abs-Q Positive iff the chunk's own prefix had a success (own-prefix), or it or a later one did (later-prefixes)", async () => {
    await fc.assert(
      fc.asyncProperty(table, async (t) => {
        const own = ownSuccess(t);
        const { labels } = await run("fixed", t, "own-prefix");
        expect(labels).toEqual(own.map((s) => (s ? "Positive" : "Negative")));
        const later = await run("fixed", t, "later-prefixes");
        expect(later.labels).toEqual(own.map((_, i) => (own.slice(i).some(Boolean) ? "Positive" : "Negative")));
      }),
      { numRuns: 400 },
    );
  });

  it("early-stop labels equal fixed's under either evidence, and never draw more", async () => {
    await fc.assert(
      fc.asyncProperty(table, fc.constantFrom<AbsQEvidence>("own-prefix", "later-prefixes"), async (t, evidence) => {
        const fixed = await run("fixed", t, evidence);
        const early = await run("early-stop", t, evidence);
        expect(early.labels).toEqual(fixed.labels);
        expect(early.drawn).toBeLessThanOrEqual(fixed.drawn);
      }),
      { numRuns: 400 },
    );
  });

  it("first-error finds fixed's first Negative whenever outcomes are monotone, and flags the solution otherwise", async () => {
    const seen = { monotone: 0, violated: 0, assumedNonMonotone: 0 };
    await fc.assert(
      fc.asyncProperty(table, fc.constantFrom<AbsQEvidence>("own-prefix", "later-prefixes"), async (t, evidence) => {
        const fixed = await run("fixed", t, evidence);
        const search = await run("first-error", t, evidence);
        const monotone = isMonotone(ownSuccess(t));
        const flag = search.outcome.monotonicity;
        if (monotone) {
          seen.monotone += 1;
          expect(firstErrorIndex(search.labels)).toBe(firstErrorIndex(fixed.labels));
          expect(flag).not.toBe("violated");
        } else if (!(evidence === "later-prefixes" && t.finalCorrect)) {
          // With a correct final answer, later-prefixes labels are all Positive whatever the prefixes do: nothing is assumed.
          expect(["assumed", "violated"]).toContain(flag);
          if (flag === "violated") seen.violated += 1;
          else seen.assumedNonMonotone += 1;
        }
        // Wherever nothing was inferred, the labels are fixed's exactly.
        if (flag === "violated" || flag === "confirmed" || flag === null) expect(search.labels).toEqual(fixed.labels);
      }),
      { numRuns: 600 },
    );
    // The generator reaches every branch.
    expect(seen.monotone).toBeGreaterThan(0);
    expect(seen.violated).toBeGreaterThan(0);
    expect(seen.assumedNonMonotone).toBeGreaterThan(0);
  });

  it("first-error: a success after the first prefix without one, seen by the confirmation, makes it sample every prefix", async () => {
    // k = 6, final wrong; prefix 3 fails, 1 and 2 succeed → boundary at 3; confirmation prefix 4 succeeds.
    const row = (success: boolean) => [success, false];
    const t: Table = { k: 6, m: 2, batch: 2, finalCorrect: false, outcomes: [row(true), row(true), row(true), row(false), row(true), row(false)] };
    const search = await run("first-error", t, "own-prefix");
    expect(search.outcome.monotonicity).toBe("violated");
    expect(search.outcome.estimates.map((e) => e.prefixLength)).toEqual([1, 2, 3, 4, 5]);
    expect(search.labels).toEqual(["Positive", "Positive", "Negative", "Positive", "Negative", "Negative"]);
  });

  it("first-error: the paper's example PNNNPN is found only where it looks; the rest is flagged as assumed", async () => {
    // Prefix successes T,F,F,F,T and a wrong final answer (issue example): paper PNNNPN.
    const row = (success: boolean) => [success];
    const t: Table = { k: 6, m: 1, batch: 1, finalCorrect: false, outcomes: [row(true), row(true), row(false), row(false), row(false), row(true)] };
    const fixed = await run("fixed", t, "own-prefix");
    expect(fixed.labels.map((l) => l[0]).join("")).toBe("PNNNPN");
    const witnesses = await run("fixed", t, "later-prefixes");
    expect(witnesses.labels.map((l) => l[0]).join("")).toBe("PPPPPN");
    const search = await run("first-error", t, "own-prefix");
    expect(firstErrorIndex(search.labels)).toBe(1);
    expect(search.outcome.monotonicity).toBe("assumed");
  });
});
