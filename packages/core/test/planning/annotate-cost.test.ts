import { describe, expect, it } from "vitest";
import {
  AnnotationPlanAccumulator,
  annotationHours,
  assumedPrefixSuccess,
  batchedDrawCost,
  CHAT_TEMPLATE_TOKENS,
  CHUNK_TAG_TOKENS,
  continuationTokens,
  expectedSolutionCost,
  policyPromptTemplateTokens,
  prefixPromptTokens,
  type AnnotationCostSettings,
  type SolutionCostInput,
} from "../../src/planning";
import { approximateTokenCount, buildSelfSegmentingPolicyPrompt, createRng, runAnnotationStrategy, type Rng } from "../../src";

const settings = (over: Partial<AnnotationCostSettings>): AnnotationCostSettings => ({ strategy: "fixed", rollouts: 4, earlyStopBatch: 2, maxTokens: 1000, ...over });

describe("token model", () => {
  it("counts the chunk tags and the policy prompt with the approximate tokenizer", () => {
    expect(CHUNK_TAG_TOKENS).toBe(7); // < chunk > < / chunk >
    expect(policyPromptTemplateTokens()).toBe(approximateTokenCount(buildSelfSegmentingPolicyPrompt({ problem: "" }).text));
  });

  it("prompt of prefix L = template + problem + L tagged chunks; continuation = the rest, capped", () => {
    const base = CHAT_TEMPLATE_TOKENS + policyPromptTemplateTokens() + 50;
    expect(prefixPromptTokens({ chunkTokens: [10, 20, 30], problemTokens: 50 })).toEqual([base, base + 17, base + 44]);
    expect(continuationTokens([10, 20, 30], 1000)).toEqual([81, 64, 37]);
    expect(continuationTokens([10, 20, 30], 60)).toEqual([60, 60, 37]);
  });
});

describe("batched draws of one prefix (early-stop and first-error probes)", () => {
  it.each([
    // q, M, batch → expected requests, expected rollouts drawn
    [0, 16, 4, 4, 16], // never succeeds: every batch
    [1, 16, 4, 1, 4], // succeeds in the first batch, which is drawn whole
    [0.5, 8, 4, 1 + 0.5 ** 4, 4 + 4 * 0.5 ** 4], // second batch iff the first 4 failed
    [0.5, 6, 4, 1 + 0.5 ** 4, 4 + 2 * 0.5 ** 4], // the last batch holds the 2 left
    [0.5, 3, 1, 1.75, 1.75], // 1 + 1/2 + 1/4
    [0, 3, 4, 1, 3], // batch larger than M: one request with n = M
    [0.5, 16, 16, 1, 16], // batch = M: the same single request as fixed
  ])("q = %s, M = %s, batch %s: %s requests, %s rollouts", (q, m, batch, requests, rollouts) => {
    const cost = batchedDrawCost(q, m, batch);
    expect(cost.requests).toBeCloseTo(requests, 12);
    expect(cost.rollouts).toBeCloseTo(rollouts, 12);
    expect(cost.success).toBeCloseTo(1 - (1 - q) ** m, 12);
  });

  it("batch 1 gives the truncated geometric mean (1 − (1 − q)^M) / q", () => {
    for (const q of [0.05, 0.2, 0.37, 0.9]) expect(batchedDrawCost(q, 16, 1).rollouts).toBeCloseTo((1 - (1 - q) ** 16) / q, 10);
  });
});

describe("expected cost per strategy", () => {
  const solution = (q: number[], finalCorrect = false, chunkTokens = [10, 20, 30]): SolutionCostInput => ({ chunkTokens, problemTokens: 50, finalCorrect, q });
  const base = CHAT_TEMPLATE_TOKENS + policyPromptTemplateTokens() + 50;

  it("fixed: one request with n = M per prefix 0..k-1, whatever q and the final answer", () => {
    for (const finalCorrect of [false, true]) {
      expect(expectedSolutionCost(solution([0.3, 0, 1], finalCorrect), settings({ strategy: "fixed" }))).toEqual({
        requests: 3,
        rollouts: 12,
        promptTokens: 3 * base + 17 + 44,
        generatedTokens: 4 * (81 + 64 + 37),
      });
    }
    expect(expectedSolutionCost(solution([0.3, 0, 1]), settings({ strategy: "fixed", maxTokens: 60 })).generatedTokens).toBe(4 * (60 + 60 + 37));
  });

  it("early-stop (own-prefix): every prefix 1..k-1 until its own first success, whatever the final answer", () => {
    const s = settings({ strategy: "early-stop", rollouts: 4, earlyStopBatch: 2 });
    // prefix 1 at q = 1/2: 1 + 1/4 requests, 2 + 2/4 rollouts; prefix 2 at q = 0: 2 requests, 4 rollouts; prefix 0 never
    for (const finalCorrect of [false, true]) {
      const cost = expectedSolutionCost(solution([1, 0.5, 0], finalCorrect), s);
      expect(cost.requests).toBeCloseTo(3.25, 12);
      expect(cost.rollouts).toBeCloseTo(6.5, 12);
      expect(cost.promptTokens).toBeCloseTo(1.25 * (base + 17) + 2 * (base + 44), 9);
      expect(cost.generatedTokens).toBeCloseTo(2.5 * 64 + 4 * 37, 9);
    }
  });

  it("early-stop (later-prefixes): nothing for a correct solution; from the last prefix back, stopping at the first success", () => {
    const s = settings({ strategy: "early-stop", rollouts: 4, earlyStopBatch: 2, evidence: "later-prefixes" });
    expect(expectedSolutionCost(solution([0.5, 0.5, 0.5], true), s)).toEqual({ requests: 0, rollouts: 0, promptTokens: 0, generatedTokens: 0 });
    // prefix 2 succeeds surely in its first batch of 2: prefix 1 is never tried
    expect(expectedSolutionCost(solution([0, 0, 1]), s)).toEqual({ requests: 1, rollouts: 2, promptTokens: base + 44, generatedTokens: 2 * 37 });
    // prefix 2 never succeeds (2 batches, 4 rollouts); prefix 1 at q = 1/2: 1 + 1/4 requests, 2 + 2/4 rollouts; prefix 0 never sampled
    const cost = expectedSolutionCost(solution([1, 0.5, 0]), s);
    expect(cost.requests).toBeCloseTo(3.25, 12);
    expect(cost.rollouts).toBeCloseTo(6.5, 12);
    expect(cost.promptTokens).toBeCloseTo(2 * (base + 44) + 1.25 * (base + 17), 9);
    expect(cost.generatedTokens).toBeCloseTo(4 * 37 + 2.5 * 64, 9);
    // prefix 1 is reached with probability (1 − q2)^M
    const partial = expectedSolutionCost(solution([0, 0, 0.5]), s);
    const p2 = batchedDrawCost(0.5, 4, 2);
    expect(partial.rollouts).toBeCloseTo(p2.rollouts + 0.5 ** 4 * 4, 12);
  });

  it("first-error: the binary search's probes weighted by their paths", () => {
    const four = [10, 10, 10, 10];
    // k = 4: probe 2; success → probe 3, failure → probe 1
    const sure = expectedSolutionCost(solution([0, 0, 1, 0], false, four), settings({ strategy: "first-error", rollouts: 4, earlyStopBatch: 4 }));
    expect(sure).toMatchObject({ requests: 2, rollouts: 8 });
    const half = expectedSolutionCost(solution([0, 1, 0.5, 0], false, four), settings({ strategy: "first-error", rollouts: 2, earlyStopBatch: 1 }));
    // probe 2 at q = 1/2, M = 2, batch 1: 1.5 requests and rollouts, success 3/4;
    // then 3/4 × probe 3 (q = 0: 2 draws; hi = 3, nothing after it to confirm)
    // + 1/4 × probe 1 (q = 1: 1 draw; hi = 2) and its confirmation, prefix 3 (2 draws, no success)
    expect(half.requests).toBeCloseTo(1.5 + 0.75 * 2 + 0.25 * (1 + 2), 12);
    expect(half.rollouts).toBeCloseTo(3.75, 12);
    // M = 2 drawn as one batch of 2 per probe:
    const recovers = expectedSolutionCost(solution([0, 0, 0, 0, 0, 1, 0], false, new Array(7).fill(10)), settings({ strategy: "first-error", rollouts: 2, earlyStopBatch: 2 }));
    // probe 3 fails → probe 1 fails → hi = 1; confirm prefix 2 fails → 3 requests (prefix 5's success is never seen)
    expect(recovers).toMatchObject({ requests: 3, rollouts: 6 });
    const seen = expectedSolutionCost(solution([0, 1, 0, 1, 0, 0], false, new Array(6).fill(10)), settings({ strategy: "first-error", rollouts: 2, earlyStopBatch: 2 }));
    // probe 3 succeeds → probe 4 fails → hi = 4; confirm prefix 5 fails: 3 requests (prefix 2's failure is never seen)
    expect(seen).toMatchObject({ requests: 3, rollouts: 6 });
    const violated = expectedSolutionCost(solution([0, 1, 1, 0, 1, 0], false, new Array(6).fill(10)), settings({ strategy: "first-error", rollouts: 2, earlyStopBatch: 2 }));
    // probe 3 fails → probe 1 succeeds → probe 2 succeeds → hi = 3; confirm prefix 4 succeeds: then prefix 5 (fails)
    expect(violated).toMatchObject({ requests: 5, rollouts: 10 });
    // all failing: probes 4, 2, 1 of k = 8, each all M samples; the confirmation (prefix 2) was drawn already
    const zeros = expectedSolutionCost(solution(new Array(8).fill(0), false, new Array(8).fill(5)), settings({ strategy: "first-error", rollouts: 16, earlyStopBatch: 4 }));
    expect(zeros).toMatchObject({ requests: 12, rollouts: 48 });
    expect(expectedSolutionCost(solution([0], false, [10]), settings({ strategy: "first-error" })).requests).toBe(0);
    expect(expectedSolutionCost(solution([0, 0.2, 0], true), settings({ strategy: "first-error" })).requests).toBe(0);
  });

  /** The strategies as the annotate pipeline runs them (core's runAnnotationStrategy), with Bernoulli(q) rollouts. */
  async function simulate(q: readonly number[], k: number, finalCorrect: boolean, s: AnnotationCostSettings, rng: Rng) {
    let requests = 0;
    let rollouts = 0;
    const sample = async (length: number, indices: readonly number[]) => {
      requests += 1;
      rollouts += indices.length;
      return indices.map(() => rng.nextFloat() < q[length]!);
    };
    await runAnnotationStrategy(s.strategy, k, finalCorrect, { rollouts: s.rollouts, batch: s.earlyStopBatch, evidence: s.evidence ?? "own-prefix" }, sample);
    return { requests, rollouts };
  }

  it.each([
    ["early-stop", "own-prefix", false],
    ["early-stop", "own-prefix", true],
    ["early-stop", "later-prefixes", false],
    ["first-error", "own-prefix", false],
    ["first-error", "later-prefixes", false],
  ] as const)("%s (%s, final answer correct: %s): the exact expectation matches the strategy simulated 20,000 times", async (strategy, evidence, finalCorrect) => {
    const rng = createRng(`plan-${strategy}-${evidence}`);
    // Not monotone (prefix 5 recovers after prefix 4's near-zero): first-error's confirmation and fallback are exercised.
    const q = [0.6, 0.55, 0.4, 0.3, 0.05, 0.1, 0, 0.02, 0];
    const s = settings({ strategy, rollouts: 16, earlyStopBatch: 4, evidence });
    const expected = expectedSolutionCost(solution(q, finalCorrect, new Array(q.length).fill(10)), s);
    let requests = 0;
    let rollouts = 0;
    const trials = 20_000;
    for (let t = 0; t < trials; t++) {
      const r = await simulate(q, q.length, finalCorrect, s, rng);
      requests += r.requests;
      rollouts += r.rollouts;
    }
    expect(requests / trials).toBeCloseTo(expected.requests, 1);
    expect(Math.abs(rollouts / trials - expected.rollouts) / expected.rollouts).toBeLessThan(0.01);
  });
});

describe("assumed success probabilities", () => {
  it("the pass rate up to a known first error and 0 after; else 1 for a correct solution and 0 beyond prefix 0 for a wrong one", () => {
    expect(assumedPrefixSuccess({ chunks: 3, finalCorrect: true, firstErrorIndex: null, passRate: 0.4 })).toEqual([1, 1, 1]);
    expect(assumedPrefixSuccess({ chunks: 4, finalCorrect: true, firstErrorIndex: 1, passRate: 0.4 })).toEqual([0.4, 0.4, 0, 0]);
    expect(assumedPrefixSuccess({ chunks: 4, finalCorrect: false, firstErrorIndex: 1, passRate: 0.4 })).toEqual([0.4, 0.4, 0, 0]);
    expect(assumedPrefixSuccess({ chunks: 3, finalCorrect: false, firstErrorIndex: null, passRate: 0.4 })).toEqual([0.4, 0, 0]);
    expect(assumedPrefixSuccess({ chunks: 3, finalCorrect: false, firstErrorIndex: -1, passRate: 0.4 })).toEqual([0.4, 0, 0]);
  });
});

describe("plan totals", () => {
  it("sums solutions, keeps the chunk statistics and rounds the estimate", () => {
    const acc = new AnnotationPlanAccumulator(settings({ strategy: "fixed", rollouts: 2 }));
    for (const k of [1, 2, 2, 3, 10]) acc.add({ chunkTokens: new Array(k).fill(4), problemTokens: 20, finalCorrect: false, q: new Array(k).fill(0) });
    acc.add({ chunkTokens: [4, 4], problemTokens: 20, finalCorrect: false, q: [0, 0] }, { cost: false });
    const totals = acc.totals();
    expect(totals.dataset).toMatchObject({ solutions: 6, chunks: 20, chunksPerSolution: { mean: 3.333, p50: 2, p95: 10, max: 10 }, tokensPerChunk: { mean: 4 } });
    expect(totals.estimate).toMatchObject({ requests: 18, rollouts: 36 });
    expect(Number.isInteger(totals.estimate.promptTokens) && Number.isInteger(totals.estimate.generatedTokens)).toBe(true);
  });

  it("hours: decode time, plus prefill time when its rate is given", () => {
    expect(annotationHours({ promptTokens: 7_200_000, generatedTokens: 3_600_000 }, { tokensPerSecond: 1000 })).toBe(1);
    expect(annotationHours({ promptTokens: 7_200_000, generatedTokens: 3_600_000 }, { tokensPerSecond: 1000, prefillTokensPerSecond: 4000 })).toBe(1.5);
  });
});
