import { approximateTokenCount } from "../chunks/stats";
import type { LabelConfidenceOptions } from "../labels/confidence";
import type { AbsQEvidence, LabelRule } from "../labels/rules";
import { annotateAdaptive, type AnnotationStrategy } from "../rollouts/strategies";
import { buildSelfSegmentingPolicyPrompt } from "../prompts/self-segmenting-policy";
import { createRng, type Rng, type Seed } from "../stats/random";

/**
 * Capacity planning for Monte-Carlo chunk annotation: the expected requests,
 * rollouts and tokens of an annotate run, per solution, modelled on the
 * strategies as the annotate pipeline runs them (packages/core/src/rollouts):
 *
 * - fixed: one request per prefix 0..k-1 with n = M.
 * - early-stop, own-prefix evidence (the default): every prefix 1..k-1 drawn
 *   in batches of `earlyStopBatch` (one request with n = batch each) until its
 *   own first success.
 * - early-stop, later-prefixes evidence: a correct final answer settles the
 *   solution with no request; otherwise prefixes k-1 down to 1, each drawn in
 *   batches until its first success, stopping at the first prefix that succeeds.
 * - first-error: a correct final answer settles it; otherwise binary search
 *   over prefixes (lo = 0, hi = k, probe ⌊(lo + hi) / 2⌋), then the
 *   confirmation probe of prefix hi + 1 (when hi + 1 < k); if it succeeds, every
 *   prefix not yet drawn is drawn. Each probe is drawn in batches like early-stop.
 *
 * - adaptive: one batch (n = adaptiveBatch) from every prefix 0..k-1, then
 *   further batches of the prefixes that an unsure label rests on, round after
 *   round. Which prefixes go on depends on the joint outcomes of all of them
 *   (through every rule's label confidence), so there is no closed form: the
 *   first round is counted exactly and the rounds after it are estimated by
 *   running core's own `annotateAdaptive` on Bernoulli(q_L) outcomes
 *   (`simulatedAdaptiveSolutionCost`; `AnnotationPlanAccumulator.simulate`
 *   does it on a seeded sample of the solutions and scales per chunk).
 *
 * Every other expectation is exact given q_L, the success probability of one
 * rollout from prefix L, with rollouts independent: no simulation. Pure: no I/O.
 */

export interface AnnotationCostSettings {
  strategy: AnnotationStrategy;
  /** M: rollouts per prefix. */
  rollouts: number;
  /** Samples per request of early-stop and first-error. */
  earlyStopBatch: number;
  /** Cap on one continuation's length (the request's max_tokens). */
  maxTokens: number;
  /** The Abs-Q evidence the cheaper strategies sample for (default own-prefix, the paper's). */
  evidence?: AbsQEvidence;
  /** The adaptive strategy's settings (required for it, ignored otherwise). */
  adaptive?: AdaptiveCostSettings;
}

/** What decides the adaptive strategy's rounds, as the run's config gives it. */
export interface AdaptiveCostSettings {
  /** Samples per prefix per round (adaptiveBatch); the first round draws one batch from every prefix. */
  batch: number;
  targetConfidence: number;
  maxRollouts: number;
  /** Every rule the run labels with: a prefix goes on while a label of any of them that rests on it is unsure. */
  rules: readonly LabelRule[];
  confidence: LabelConfidenceOptions;
  /** Generated tokens the run may spend (tokenBudget): once reached, no solution gets another round. */
  tokenBudget?: number;
}

/** Expected work; every field is an expectation, so possibly fractional. */
export interface AnnotationCost {
  requests: number;
  /** Sampled continuations: every sample of every request, also those after a batch's first success. */
  rollouts: number;
  /** Prompt tokens counted once per request (its n samples share the prompt), as `usage.prompt_tokens` is. */
  promptTokens: number;
  generatedTokens: number;
}

/** One solution as the estimator sees it. */
export interface SolutionCostInput {
  /** Tokens of each chunk's text, in order (k entries). */
  chunkTokens: readonly number[];
  /** Tokens of the problem text. */
  problemTokens: number;
  /** Whether the solution's own final answer is right (settles early-stop and first-error). */
  finalCorrect: boolean;
  /** q[L]: success probability of one rollout from prefix L, for L = 0..k-1. */
  q: readonly number[];
}

/** `<chunk>` and `</chunk>` around every chunk of a prefix or a continuation. */
export const CHUNK_TAG_TOKENS = approximateTokenCount("<chunk></chunk>");

/** Chat-template tokens around the user message and the assistant prefix (role headers, ≈ 5 each). */
export const CHAT_TEMPLATE_TOKENS = 10;

let templateTokens: number | undefined;
/** The self-segmenting policy prompt without its problem, in approximate tokens. */
export function policyPromptTemplateTokens(): number {
  templateTokens ??= approximateTokenCount(buildSelfSegmentingPolicyPrompt({ problem: "" }).text);
  return templateTokens;
}

const zeroCost = (): AnnotationCost => ({ requests: 0, rollouts: 0, promptTokens: 0, generatedTokens: 0 });

function addCost(into: AnnotationCost, cost: AnnotationCost, weight: number) {
  into.requests += weight * cost.requests;
  into.rollouts += weight * cost.rollouts;
  into.promptTokens += weight * cost.promptTokens;
  into.generatedTokens += weight * cost.generatedTokens;
}

function addScaled(into: AnnotationCost, weight: number, requests: number, rollouts: number, promptTokens: number, continuationTokens: number) {
  into.requests += weight * requests;
  into.rollouts += weight * rollouts;
  into.promptTokens += weight * requests * promptTokens;
  into.generatedTokens += weight * rollouts * continuationTokens;
}

const probability = (q: number | undefined): number => Math.min(1, Math.max(0, Number.isFinite(q) ? q! : 0));

/** Prompt tokens of the request from each prefix L = 0..k-1: chat template + policy prompt + problem + the first L chunks in tags. */
export function prefixPromptTokens(input: Pick<SolutionCostInput, "chunkTokens" | "problemTokens">): number[] {
  const out: number[] = [];
  let prompt = CHAT_TEMPLATE_TOKENS + policyPromptTemplateTokens() + input.problemTokens;
  for (const tokens of input.chunkTokens) {
    out.push(prompt);
    prompt += tokens + CHUNK_TAG_TOKENS;
  }
  return out;
}

/**
 * Generated tokens of one continuation from each prefix L = 0..k-1: the rest of
 * the solution (chunks L..k-1 with their tags), capped at `maxTokens`.
 */
export function continuationTokens(chunkTokens: readonly number[], maxTokens: number): number[] {
  const out = new Array<number>(chunkTokens.length);
  let rest = 0;
  for (let i = chunkTokens.length - 1; i >= 0; i--) {
    rest += chunkTokens[i]! + CHUNK_TAG_TOKENS;
    out[i] = Math.min(maxTokens, rest);
  }
  return out;
}

/**
 * One prefix drawn as `anySuccess` draws it: batches of `batch` samples (the
 * last one smaller when M is not a multiple), one request each, until a batch
 * holds a success or M samples are drawn. Batch j is requested iff the j·batch
 * samples before it all failed: probability (1 − q)^(j·batch).
 */
export function batchedDrawCost(q: number, m: number, batch: number): { requests: number; rollouts: number; success: number } {
  const fail = 1 - probability(q);
  const size = Math.max(1, Math.floor(batch));
  let requests = 0;
  let rollouts = 0;
  for (let drawn = 0; drawn < m; drawn += size) {
    const reached = fail ** drawn;
    if (reached === 0) break;
    requests += reached;
    rollouts += reached * Math.min(size, m - drawn);
  }
  return { requests, rollouts, success: 1 - fail ** m };
}

/** Expected cost of annotating one solution under the settings; the adaptive strategy has none in closed form (`simulatedAdaptiveSolutionCost`). */
export function expectedSolutionCost(input: SolutionCostInput, settings: AnnotationCostSettings): AnnotationCost {
  if (settings.strategy === "adaptive") {
    throw new RangeError("the adaptive strategy's cost depends on the joint outcomes of every prefix: estimate it with simulatedAdaptiveSolutionCost or AnnotationPlanAccumulator.simulate");
  }
  const k = input.chunkTokens.length;
  const cost = zeroCost();
  if (k === 0) return cost;
  const prompt = prefixPromptTokens(input);
  const continuation = continuationTokens(input.chunkTokens, settings.maxTokens);
  const m = settings.rollouts;

  if (settings.strategy === "fixed") {
    for (let length = 0; length < k; length++) addScaled(cost, 1, 1, m, prompt[length]!, continuation[length]!);
    return cost;
  }
  const draw = (length: number) => batchedDrawCost(input.q[length] ?? 0, m, settings.earlyStopBatch);
  const drawInto = (length: number, weight: number) => {
    const d = draw(length);
    addScaled(cost, weight, d.requests, d.rollouts, prompt[length]!, continuation[length]!);
    return d.success;
  };
  const laterPrefixes = settings.evidence === "later-prefixes";

  if (settings.strategy === "early-stop") {
    if (!laterPrefixes) {
      for (let length = 1; length < k; length++) drawInto(length, 1);
      return cost;
    }
    if (input.finalCorrect) return cost;
    // From the last prefix backwards; prefix L is tried iff every later one failed.
    let reached = 1;
    for (let length = k - 1; length >= 1 && reached > 0; length--) reached *= 1 - drawInto(length, reached);
    return cost;
  }

  if (input.finalCorrect) return cost;
  // first-error: every path of the binary search, weighted by its probability, then its confirmation and fallback.
  const search = (lo: number, hi: number, weight: number, drawn: ReadonlySet<number>) => {
    if (weight <= 0) return;
    if (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const success = drawInto(mid, weight);
      const next = new Set(drawn).add(mid);
      search(mid, hi, weight * success, next);
      search(lo, mid, weight * (1 - success), next);
      return;
    }
    // A prefix after hi drawn by the search failed there: nothing to confirm.
    if (hi + 1 >= k || drawn.has(hi + 1)) return;
    const violated = weight * drawInto(hi + 1, weight);
    if (violated <= 0) return;
    for (let length = 1; length < k; length++) if (length !== hi + 1 && !drawn.has(length)) drawInto(length, violated);
  };
  search(0, k, 1, new Set());
  return cost;
}

function adaptiveSettingsOf(settings: AnnotationCostSettings): AdaptiveCostSettings {
  if (!settings.adaptive) throw new RangeError("the adaptive strategy needs its settings (batch, targetConfidence, maxRollouts, rules, confidence)");
  return settings.adaptive;
}

/**
 * The adaptive strategy's first round, which it draws whatever the outcomes:
 * one request with n = min(batch, maxRollouts) from every prefix 0..k-1.
 */
export function adaptiveFirstRoundCost(input: SolutionCostInput, settings: AnnotationCostSettings): AnnotationCost {
  const adaptive = adaptiveSettingsOf(settings);
  const n = Math.min(adaptive.batch, adaptive.maxRollouts);
  const cost = zeroCost();
  const prompt = prefixPromptTokens(input);
  const continuation = continuationTokens(input.chunkTokens, settings.maxTokens);
  for (let length = 0; length < input.chunkTokens.length; length++) addScaled(cost, 1, 1, n, prompt[length]!, continuation[length]!);
  return cost;
}

/**
 * One adaptive annotation of a solution, simulated: core's `annotateAdaptive`
 * itself, with each rollout from prefix L a success with probability q_L
 * (drawn from `rng`, independently), and the work its sampler was asked for
 * counted as the run counts it: a request per call, its n samples, the
 * prompt once per request, each sample's continuation.
 */
export async function simulateAdaptiveSolution(input: SolutionCostInput, settings: AnnotationCostSettings, rng: Rng): Promise<AnnotationCost> {
  const adaptive = adaptiveSettingsOf(settings);
  const k = input.chunkTokens.length;
  const cost = zeroCost();
  if (k === 0) return cost;
  const prompt = prefixPromptTokens(input);
  const continuation = continuationTokens(input.chunkTokens, settings.maxTokens);
  const sample = (length: number, indices: readonly number[]) => {
    addScaled(cost, 1, 1, indices.length, prompt[length]!, continuation[length]!);
    const q = probability(input.q[length]);
    return Promise.resolve(indices.map(() => rng.nextFloat() < q));
  };
  await annotateAdaptive(
    k,
    input.finalCorrect,
    { rollouts: adaptive.maxRollouts, batch: adaptive.batch, evidence: settings.evidence ?? "own-prefix", adaptive: { batch: adaptive.batch, targetConfidence: adaptive.targetConfidence, maxRollouts: adaptive.maxRollouts, rules: adaptive.rules, confidence: adaptive.confidence } },
    sample,
  );
  return cost;
}

/** The mean cost of `replicates` simulated adaptive annotations of one solution (without a token budget). */
export async function simulatedAdaptiveSolutionCost(input: SolutionCostInput, settings: AnnotationCostSettings, rng: Rng, replicates: number): Promise<AnnotationCost> {
  if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`replicates must be a positive integer, got ${replicates}`);
  const mean = zeroCost();
  for (let r = 0; r < replicates; r++) {
    addCost(mean, await simulateAdaptiveSolution(input, settings, rng), 1 / replicates);
  }
  return mean;
}

/** How the adaptive estimate was simulated: part of the plan, so its assumptions can say exactly what was done. */
export interface AdaptiveSimulationOptions {
  /** At most this many annotatable solutions are simulated: a seeded uniform sample (reservoir) of the plan's solutions. */
  sampleSize: number;
  /** Simulated annotations per sampled solution, averaged. */
  replicates: number;
  /** Seeds the sample (`<seed>:sample`) and the simulated outcomes (`<seed>:outcomes`). */
  seed: Seed;
}

export const DEFAULT_ADAPTIVE_SIMULATION: AdaptiveSimulationOptions = { sampleSize: 300, replicates: 4, seed: "plan-adaptive" };

export interface AdaptiveSimulationReport {
  sampleSize: number;
  replicates: number;
  seed: Seed;
  /** Annotatable solutions of the plan, and how many of them were simulated. */
  solutions: number;
  sampledSolutions: number;
  /** Chunks of all annotatable solutions, and of the simulated ones. */
  chunks: number;
  sampledChunks: number;
  /** chunks / sampledChunks: what the sample's cost beyond the first round is multiplied by (1 when every solution was simulated). */
  scale: number;
  /** Mean batches drawn per prefix in the simulated annotations (1: the first round only). */
  batchesPerPrefix: number;
  /** Cost beyond the first round, after scaling and before any token budget. */
  beyondFirstRound: AnnotationCost;
  /**
   * Share of `beyondFirstRound` kept under the token budget: 1 without a budget or when it is not reached; else the
   * fraction that brings generated tokens to the budget (never below the first round, which is always drawn).
   */
  budgetShare: number;
}

/**
 * q when no fixed annotate run has measured it, per prefix L = 0..k-1:
 * - with a known first erroneous chunk e (0-based): `passRate` for the
 *   error-free prefixes L ≤ e (a correct partial solution is assumed no easier
 *   to finish than the problem from scratch), 0 after it (no recovery);
 * - a solution with a correct final answer and no known error: 1 everywhere
 *   (every prefix succeeds in its first batch: a lower bound);
 * - a wrong one with no known first error: `passRate` for prefix 0, 0 for
 *   every later prefix, so each probe draws all M samples (an upper bound for
 *   early-stop and first-error).
 */
export function assumedPrefixSuccess(solution: { chunks: number; finalCorrect: boolean; firstErrorIndex: number | null | undefined; passRate: number }): number[] {
  const { chunks: k, finalCorrect, firstErrorIndex, passRate } = solution;
  const knownError = firstErrorIndex !== null && firstErrorIndex !== undefined && firstErrorIndex >= 0;
  if (finalCorrect && !knownError) return new Array<number>(k).fill(1);
  const lastGood = knownError ? firstErrorIndex : 0;
  return Array.from({ length: k }, (_, length) => (length <= lastGood ? probability(passRate) : 0));
}

export interface Throughput {
  /** Generated (decode) tokens per second of the whole cluster. */
  tokensPerSecond: number;
  /** Prompt (prefill) tokens per second; prefill time is left out without it. */
  prefillTokensPerSecond?: number;
}

/** Wall-clock hours at full utilisation: decode time, plus prefill time when a prefill rate is given. */
export function annotationHours(cost: Pick<AnnotationCost, "promptTokens" | "generatedTokens">, throughput: Throughput): number {
  const seconds = cost.generatedTokens / throughput.tokensPerSecond + (throughput.prefillTokensPerSecond ? cost.promptTokens / throughput.prefillTokensPerSecond : 0);
  return seconds / 3600;
}

/** Rounds to `significant` significant digits (hours, means): 0.000123456 → 0.000123. */
export function roundSignificant(value: number, significant = 3): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  return Number(value.toPrecision(significant));
}

export interface AnnotationPlanTotals {
  dataset: {
    solutions: number;
    chunks: number;
    chunksPerSolution: { mean: number | null; p50: number | null; p95: number | null; max: number | null };
    tokensPerChunk: { mean: number | null };
    /** Mean prompt of one request from a prefix, over every prefix 0..k-1 of every solution. */
    promptTokens: { mean: number | null };
  };
  /** Rounded: integers for counts and tokens. */
  estimate: AnnotationCost;
  /** Unrounded expectations, for hours and for comparisons. */
  exact: AnnotationCost;
  /** The adaptive strategy only: how its rounds after the first were simulated. */
  adaptive?: AdaptiveSimulationReport;
}

/** Nearest-rank percentile over a histogram value → count. */
function histogramPercentile(histogram: ReadonlyMap<number, number>, total: number, percent: number): number | null {
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((percent / 100) * total));
  let seen = 0;
  for (const value of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(value)!;
    if (seen >= rank) return value;
  }
  return null;
}

/**
 * Sums solutions one at a time (a dataset is read page by page, never held
 * whole): the plan's totals and the dataset's statistics. Solutions a run
 * could not annotate (no reference answer) count in the statistics with `add(…, { cost: false })`.
 *
 * The adaptive strategy: `add` counts each solution's first round exactly and
 * keeps a seeded uniform sample of at most `sampleSize` solutions (reservoir
 * sampling, so the dataset is still read once); `simulate()` then runs the
 * adaptive strategy `replicates` times on each sampled solution, takes the
 * mean cost beyond the first round per chunk of the sample and multiplies it
 * by the chunks of all annotatable solutions (with every solution sampled the
 * factor is 1), and caps that part at the token budget if the config has one.
 * Call `await simulate()` before `totals()`; it does nothing for the other strategies.
 */
export class AnnotationPlanAccumulator {
  private readonly total = zeroCost();
  private readonly histogram = new Map<number, number>();
  private solutions = 0;
  private chunks = 0;
  private chunkTokens = 0;
  private prefixPrompts = 0;
  private readonly simulation: AdaptiveSimulationOptions;
  private readonly reservoir: SolutionCostInput[] = [];
  private reservoirRng: Rng | undefined;
  private annotatable = 0;
  private annotatableChunks = 0;
  private readonly firstRound = zeroCost();
  private report: AdaptiveSimulationReport | undefined;

  constructor(
    readonly settings: AnnotationCostSettings,
    simulation: Partial<AdaptiveSimulationOptions> = {},
  ) {
    this.simulation = { ...DEFAULT_ADAPTIVE_SIMULATION, ...simulation };
    if (settings.strategy === "adaptive") {
      adaptiveSettingsOf(settings);
      const { sampleSize, replicates } = this.simulation;
      if (!Number.isInteger(sampleSize) || sampleSize < 1) throw new RangeError(`sampleSize must be a positive integer, got ${sampleSize}`);
      if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`replicates must be a positive integer, got ${replicates}`);
      this.reservoirRng = createRng(`${this.simulation.seed}:sample`);
    }
  }

  /** Adds one solution; returns its expected cost (adaptive: its first round, the rest comes from `simulate()`). */
  add(input: SolutionCostInput, options: { cost?: boolean } = {}): AnnotationCost {
    const k = input.chunkTokens.length;
    this.solutions += 1;
    this.chunks += k;
    this.histogram.set(k, (this.histogram.get(k) ?? 0) + 1);
    for (const tokens of input.chunkTokens) this.chunkTokens += tokens;
    for (const prompt of prefixPromptTokens(input)) this.prefixPrompts += prompt;
    if (options.cost === false) return zeroCost();
    if (this.settings.strategy === "adaptive") {
      if (this.report) throw new Error("simulate() has run: no solution can be added after it");
      const first = adaptiveFirstRoundCost(input, this.settings);
      addCost(this.firstRound, first, 1);
      addCost(this.total, first, 1);
      if (k > 0) this.sample(input);
      return first;
    }
    const cost = expectedSolutionCost(input, this.settings);
    addCost(this.total, cost, 1);
    return cost;
  }

  /** Reservoir sampling (Algorithm R): after n solutions, each is in the sample with probability sampleSize / n. */
  private sample(input: SolutionCostInput): void {
    const seen = this.annotatable;
    this.annotatable += 1;
    this.annotatableChunks += input.chunkTokens.length;
    if (seen < this.simulation.sampleSize) {
      this.reservoir.push(input);
      return;
    }
    const slot = this.reservoirRng!.nextInt(seen + 1);
    if (slot < this.simulation.sampleSize) this.reservoir[slot] = input;
  }

  /** Adaptive only: simulates the sampled solutions and adds the scaled cost beyond the first round. */
  async simulate(): Promise<void> {
    if (this.settings.strategy !== "adaptive" || this.report) return;
    const adaptive = adaptiveSettingsOf(this.settings);
    const { sampleSize, replicates, seed } = this.simulation;
    const rng = createRng(`${seed}:outcomes`);
    const beyond = zeroCost();
    let sampledChunks = 0;
    let requests = 0;
    for (const input of this.reservoir) {
      sampledChunks += input.chunkTokens.length;
      const first = adaptiveFirstRoundCost(input, this.settings);
      const mean = await simulatedAdaptiveSolutionCost(input, this.settings, rng, replicates);
      addCost(beyond, mean, 1);
      addCost(beyond, first, -1);
      requests += mean.requests;
    }
    const scale = sampledChunks === 0 ? 0 : this.annotatableChunks / sampledChunks;
    const scaled = zeroCost();
    addCost(scaled, beyond, scale);
    let budgetShare = 1;
    if (adaptive.tokenBudget !== undefined && scaled.generatedTokens > 0) {
      const room = Math.max(0, adaptive.tokenBudget - this.firstRound.generatedTokens);
      budgetShare = Math.min(1, room / scaled.generatedTokens);
    }
    addCost(this.total, scaled, budgetShare);
    this.report = {
      sampleSize,
      replicates,
      seed,
      solutions: this.annotatable,
      sampledSolutions: this.reservoir.length,
      chunks: this.annotatableChunks,
      sampledChunks,
      scale,
      batchesPerPrefix: sampledChunks === 0 ? 0 : requests / sampledChunks,
      beyondFirstRound: scaled,
      budgetShare,
    };
  }

  totals(): AnnotationPlanTotals {
    if (this.settings.strategy === "adaptive" && !this.report) throw new Error("the adaptive estimate needs `await simulate()` before totals()");
    const { solutions, chunks } = this;
    const max = solutions === 0 ? null : Math.max(...this.histogram.keys());
    return {
      dataset: {
        solutions,
        chunks,
        chunksPerSolution: {
          mean: solutions === 0 ? null : roundSignificant(chunks / solutions, 4),
          p50: histogramPercentile(this.histogram, solutions, 50),
          p95: histogramPercentile(this.histogram, solutions, 95),
          max,
        },
        tokensPerChunk: { mean: chunks === 0 ? null : roundSignificant(this.chunkTokens / chunks, 4) },
        promptTokens: { mean: chunks === 0 ? null : roundSignificant(this.prefixPrompts / chunks, 4) },
      },
      estimate: {
        requests: Math.round(this.total.requests),
        rollouts: Math.round(this.total.rollouts),
        promptTokens: Math.round(this.total.promptTokens),
        generatedTokens: Math.round(this.total.generatedTokens),
      },
      exact: { ...this.total },
      ...(this.report ? { adaptive: this.report } : {}),
    };
  }
}
