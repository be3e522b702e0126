import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  annotateAdaptive,
  DEFAULT_LABEL_CONFIDENCE_OPTIONS,
  labelConfidences,
  labelsFromStoredValues,
  unsurePrefixes,
  type AdaptiveSettings,
  type LabelRule,
  type PrefixEstimate,
} from "../../src";

/** Rollout outcomes per prefix 0..k-1 and seed 0..maxRollouts-1, each prefix with its own success rate. */
interface World {
  k: number;
  finalCorrect: boolean;
  outcomes: boolean[][];
}

const RULES: LabelRule[] = [
  { rule: "rel-ratio", gamma: 0.7 },
  { rule: "rel-effective", alpha: 0.8, n: 4 },
];

const world = (maxRollouts: number): fc.Arbitrary<World> =>
  fc
    .record({ k: fc.integer({ min: 1, max: 6 }), finalCorrect: fc.boolean() })
    .chain(({ k, finalCorrect }) =>
      fc
        .array(
          fc.double({ min: 0, max: 1, noNaN: true }).chain((q) => fc.array(fc.double({ min: 0, max: 1, noNaN: true }).map((u) => u < q), { minLength: maxRollouts, maxLength: maxRollouts })),
          { minLength: k, maxLength: k },
        )
        .map((outcomes) => ({ k, finalCorrect, outcomes })),
    );

async function runAdaptive(w: World, settings: Omit<AdaptiveSettings, "confidence">) {
  const requests: { length: number; indices: readonly number[] }[] = [];
  const sample = async (length: number, indices: readonly number[]) => {
    requests.push({ length, indices });
    return indices.map((i) => w.outcomes[length]![i]!);
  };
  const adaptive = { ...settings, confidence: DEFAULT_LABEL_CONFIDENCE_OPTIONS };
  const outcome = await annotateAdaptive(w.k, w.finalCorrect, { rollouts: settings.maxRollouts, batch: settings.batch, evidence: "own-prefix", adaptive }, sample);
  return { outcome, requests, adaptive };
}

describe("adaptive sampling", () => {
  it("draws each prefix's seeds in order, counts them truly, never past maxRollouts, and stops only when every label is sure or its prefixes are spent", async () => {
    await fc.assert(
      fc.asyncProperty(world(16), fc.integer({ min: 1, max: 5 }), fc.double({ min: 0.5, max: 0.99, noNaN: true }), async (w, batch, targetConfidence) => {
        const { outcome, requests, adaptive } = await runAdaptive(w, { batch, targetConfidence, maxRollouts: 16, rules: RULES });
        expect(outcome.estimates.map((e) => e.prefixLength)).toEqual(Array.from({ length: w.k }, (_, i) => i));
        const next = new Map<number, number>();
        for (const { length, indices } of requests) {
          const from = next.get(length) ?? 0;
          expect(indices).toEqual(Array.from({ length: indices.length }, (_, i) => from + i));
          next.set(length, from + indices.length);
        }
        for (const e of outcome.estimates) {
          expect(e.rollouts).toBe(next.get(e.prefixLength));
          expect(e.rollouts).toBeGreaterThanOrEqual(Math.min(batch, 16));
          expect(e.rollouts).toBeLessThanOrEqual(16);
          expect(e.correct).toBe(w.outcomes[e.prefixLength]!.slice(0, e.rollouts).filter(Boolean).length);
        }
        // Stopped: whatever is still unsure has used all its rollouts.
        for (const length of unsurePrefixes(w.k, w.finalCorrect, outcome.estimates, adaptive)) expect(outcome.estimates[length]!.rollouts).toBe(16);
      }),
      { numRuns: 150 },
    );
  });

  it("with a target every label meets at once, draws one batch per prefix", async () => {
    const w: World = { k: 3, finalCorrect: true, outcomes: [Array(8).fill(true), Array(8).fill(true), Array(8).fill(true)] };
    const { outcome } = await runAdaptive(w, { batch: 4, targetConfidence: 0.5, maxRollouts: 8, rules: RULES });
    expect(outcome.estimates.map((e) => e.rollouts)).toEqual([4, 4, 4]);
  });

  it("samples more where a label is a coin flip: near γ·Q_{i-1} it draws more than where the label is clear", async () => {
    // Seeds succeed at exactly rate r in every prefix of seeds (seed i succeeds iff ⌊(i+1)r⌋ > ⌊ir⌋).
    const atRate = (r: number) => Array.from({ length: 64 }, (_, i) => Math.floor((i + 1) * r) > Math.floor(i * r));
    const rule: LabelRule = { rule: "rel-ratio", gamma: 0.7 };
    const settings = { batch: 4, targetConfidence: 0.95, maxRollouts: 64, rules: [rule] };
    // Q_0 = 0.75, Q_1 = 0.53: ratio 0.71, a hair above γ.
    const close = await runAdaptive({ k: 2, finalCorrect: true, outcomes: [atRate(0.75), atRate(0.53)] }, settings);
    // Q_0 = 0.75, Q_1 = 1: clearly Positive.
    const clear = await runAdaptive({ k: 2, finalCorrect: true, outcomes: [atRate(0.75), atRate(1)] }, settings);
    const drawn = (o: { estimates: PrefixEstimate[] }) => o.estimates.reduce((sum, e) => sum + e.rollouts, 0);
    expect(drawn(clear.outcome)).toBe(8);
    expect(close.outcome.estimates.map((e) => e.rollouts)).toEqual([64, 64]);
    // Every label of the clear world is sure; the close one is still unsure after 64 (its prefixes are spent).
    const confidence = (o: { estimates: PrefixEstimate[] }) => {
      const [p0, p1] = o.estimates as [PrefixEstimate, PrefixEstimate];
      const labels = labelsFromStoredValues(rule, { q0: p0.correct / p0.rollouts, q: [p1.correct / p1.rollouts, 1] })!;
      return labelConfidences(rule, labels, [p0, p1, { known: 1 }].map((e) => ("known" in e ? e : { correct: e.correct, rollouts: e.rollouts })));
    };
    expect(confidence(clear.outcome)[0]!).toBeGreaterThanOrEqual(0.95);
    expect(confidence(close.outcome)[0]!).toBeLessThan(0.95);
  });

  it("settles prefixes whose rollouts all fail: a 0 of m → 0 of m Negative becomes sure, so it stops well before maxRollouts", async () => {
    // Q_0 and Q_1 both 0 of m, the solution wrong: chunk 1 is Negative under both rules (a zero previous value and
    // no recovery), chunk 2 (0 of m → the known wrong outcome) is a sure Negative from the start.
    const maxRollouts = 2048;
    const w: World = { k: 2, finalCorrect: false, outcomes: [Array(maxRollouts).fill(false), Array(maxRollouts).fill(false)] };
    const settings = { batch: 4, targetConfidence: 0.95, maxRollouts, rules: RULES };
    const { outcome, adaptive } = await runAdaptive(w, settings);
    const [p0, p1] = outcome.estimates as [PrefixEstimate, PrefixEstimate];
    expect(p0.rollouts).toBe(p1.rollouts);
    expect(p0.correct + p1.correct).toBe(0);
    expect(p1.rollouts).toBeLessThan(maxRollouts / 4);
    expect(unsurePrefixes(w.k, w.finalCorrect, outcome.estimates, adaptive).size).toBe(0);
    // It stopped at the first round where both rules' Negative reached the target, not later.
    const lowest = (m: number) =>
      Math.min(
        ...RULES.flatMap((rule) => labelConfidences(rule, ["Negative", "Negative"], [{ correct: 0, rollouts: m }, { correct: 0, rollouts: m }, { known: 0 }]) as number[]),
      );
    expect(lowest(p1.rollouts)).toBeGreaterThanOrEqual(0.95);
    expect(lowest(p1.rollouts - settings.batch)).toBeLessThan(0.95);
    // At the default maxRollouts (32) the same pair is still unsure: 0 of 32 → 0 of 32 leaves "no success possible" in doubt.
    expect(lowest(32)).toBeLessThan(0.7);
  });

  it("stops adding rounds when told to (a spent token budget), keeping the first batch of every prefix", async () => {
    const w: World = { k: 2, finalCorrect: false, outcomes: [Array(32).fill(false).map((_, i) => i % 2 === 0), Array(32).fill(false).map((_, i) => i % 3 === 0)] };
    const requests: number[] = [];
    const sample = async (length: number, indices: readonly number[]) => {
      requests.push(indices.length);
      return indices.map((i) => w.outcomes[length]![i]!);
    };
    const adaptive: AdaptiveSettings = { batch: 4, targetConfidence: 0.999, maxRollouts: 32, rules: RULES, confidence: DEFAULT_LABEL_CONFIDENCE_OPTIONS, mayContinue: () => false };
    const outcome = await annotateAdaptive(w.k, w.finalCorrect, { rollouts: 32, batch: 4, evidence: "own-prefix", adaptive }, sample);
    expect(outcome.estimates.map((e) => e.rollouts)).toEqual([4, 4]);
  });
});
