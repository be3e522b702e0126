import {
  applyLabelRule,
  confidenceBin,
  CONFIDENCE_BINS,
  createRng,
  labelConfidences,
  labelRuleKey,
  labelsFromStoredValues,
  runAnnotationStrategy,
  serializeChunkTags,
  storedLabelRule,
  storedPrefixEvidence,
  type Label,
  type LabelRule,
  type PrefixEvidence,
  type PrefixEstimate,
  type StrategySettings,
} from "@stepwiser/core";
import { writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { continueSolution, generateProblem, parseProblem, sampleSolutionChunks, simTokenCount, trueQValues, type ArithProblem, type PolicyRates } from "@stepwiser/inference/sim";
import { generateOutputDatasetId } from "../src/pipelines/generate/output-dataset";
import { annotateHandler, createAndExecuteRun, createSimWorldDataset, executeRun, RUN_HANDLERS } from "../src";
import { startBenchEnvironment } from "./bench-environment";

/**
 * Label confidence on the simulated world, where every prefix's true Q-value
 * is known: (A) whether the confidences of labels from fixed M = 16 counts are
 * calibrated against the labels the rules give on the true Q-values, and (B)
 * what the adaptive strategy costs and how accurate its labels are against
 * fixed M = 16 and M = 32. Part 1 runs annotate runs through the real pipeline
 * on the simulated cluster; part 2 runs the same strategies in-process at
 * scale, each rollout drawn by the world's policy on the prefix's text.
 */
const REL_RATIO: LabelRule = { rule: "rel-ratio", gamma: 0.7 };
const REL_EFFECTIVE: LabelRule = { rule: "rel-effective", alpha: 0.8, n: 4 };
const ABS_Q: LabelRule = { rule: "abs-q", evidence: "own-prefix" };
const CALIBRATION_RULES = [REL_RATIO, REL_EFFECTIVE, ABS_Q];
const ADAPTIVE_RULES = [REL_RATIO, REL_EFFECTIVE];
const RULE_NAMES = new Map<LabelRule, string>([
  [REL_RATIO, "Rel-Ratio(γ=0.7)"],
  [REL_EFFECTIVE, "Rel-Effective(α=0.8, n=4)"],
  [ABS_Q, "Abs-Q(ε=0.01)"],
]);
const ruleName = (rule: LabelRule) => RULE_NAMES.get(rule)!;

/** Part 1: solutions annotated through the pipeline (one setting). */
const PIPELINE_PROBLEMS = 200;
const PIPELINE_RATES: PolicyRates = { errorRate: 0.15, recoveryRate: 0.1 };
/** Part 2: solutions per setting of the world, in-process. */
const IN_PROCESS_SOLUTIONS = 2000;
const SETTINGS: PolicyRates[] = [PIPELINE_RATES, { errorRate: 0.3, recoveryRate: 0.3 }];
/** Control: solutions whose prefixes' Q-values are drawn from the Jeffreys prior itself. */
const CONTROL_SOLUTIONS = 3000;
/** Calibration: M of the fixed counts the labels and confidences come from; the largest fixed M compared. */
const CALIBRATION_M = 16;
const LARGE_M = 32;
const MIN_DECILE_LABELS = 100;
const GAP_TARGET = 0.05;
const ACCURACY_TOLERANCE = 0.005;
const TOKEN_SHARE_TARGET = 0.7;

/** The adaptive run's settings, as the annotate config fills them in: batch 4, target 0.95, max 32, Jeffreys prior. */
const adaptiveConfig = annotateHandler.configSchema.parse({ datasetId: "-", policyEndpoint: "policy", strategy: "adaptive", labelRules: ADAPTIVE_RULES });
const strategySettings = (rollouts: number): StrategySettings => ({
  rollouts,
  batch: adaptiveConfig.earlyStopBatch,
  evidence: "own-prefix",
  adaptive: {
    batch: adaptiveConfig.adaptiveBatch,
    targetConfidence: adaptiveConfig.targetConfidence,
    maxRollouts: adaptiveConfig.maxRollouts,
    rules: adaptiveConfig.labelRules,
    confidence: adaptiveConfig.labelConfidence,
  },
});
const ABS_Q_EPSILON = adaptiveConfig.labelConfidence.absQEpsilon;
const settingName = (rates: PolicyRates) => `${rates.errorRate}/${rates.recoveryRate}`;

// ---------- shared: truth, labels, reliability tables, accuracy ----------

/** True Q-values of one solution: Q_0 and Q_i after each chunk (the last one the solution's known outcome, 0 or 1). */
interface Truth {
  q0: number;
  q: number[];
}

/** The rule applied to the true Q-values; Abs-Q's truth is the confidence's own: Q_i > ε. */
function trueLabels(rule: LabelRule, truth: Truth): Label[] {
  if (rule.rule === "abs-q") return truth.q.map((q) => (q > ABS_Q_EPSILON ? "Positive" : "Negative"));
  return applyLabelRule(rule, truth.q0, truth.q);
}

/** Evidence of prefixes 0..k: the sampled counts, then the finished solution's known outcome. */
function evidenceOf(counts: readonly { correct: number; rollouts: number }[], finalCorrect: boolean): PrefixEvidence[] {
  return [...counts.map((c) => ({ correct: c.correct, rollouts: c.rollouts })), { known: finalCorrect ? 1 : 0 }];
}

/** A rule's labels on the estimates s/m, as the pipeline computes them from stored values. */
function estimatedLabels(rule: LabelRule, counts: readonly { correct: number; rollouts: number }[], finalCorrect: boolean): Label[] {
  const values = { q0: counts[0]!.correct / counts[0]!.rollouts, q: [...counts.slice(1).map((c) => c.correct / c.rollouts), finalCorrect ? 1 : 0] };
  return labelsFromStoredValues(rule, values)!;
}

class Reliability {
  readonly labels = new Array<number>(CONFIDENCE_BINS).fill(0);
  readonly confidence = new Array<number>(CONFIDENCE_BINS).fill(0);
  readonly agree = new Array<number>(CONFIDENCE_BINS).fill(0);
  add(confidence: number, agrees: boolean): void {
    const bin = confidenceBin(confidence);
    this.labels[bin]! += 1;
    this.confidence[bin]! += confidence;
    if (agrees) this.agree[bin]! += 1;
  }
  merge(other: Reliability): this {
    for (let b = 0; b < CONFIDENCE_BINS; b++) {
      this.labels[b]! += other.labels[b]!;
      this.confidence[b]! += other.confidence[b]!;
      this.agree[b]! += other.agree[b]!;
    }
    return this;
  }
  get total(): number {
    return this.labels.reduce((a, b) => a + b, 0);
  }
  /** Mean confidence − observed agreement of a bin. */
  gap(bin: number): number {
    return (this.confidence[bin]! - this.agree[bin]!) / this.labels[bin]!;
  }
  /** 95 % binomial half-width of a bin's agreement. */
  halfWidth(bin: number): number {
    const share = this.agree[bin]! / this.labels[bin]!;
    return 1.96 * Math.sqrt((share * (1 - share)) / this.labels[bin]!);
  }
  /** Label-weighted mean |gap| over the bins (expected calibration error). */
  get ece(): number {
    let sum = 0;
    for (let b = 0; b < CONFIDENCE_BINS; b++) if (this.labels[b]! > 0) sum += Math.abs(this.confidence[b]! - this.agree[b]!);
    return sum / this.total;
  }
  /** Deciles with enough labels for the target, and the worst of them. */
  worst(): { bin: number; gap: number } | null {
    let worst: { bin: number; gap: number } | null = null;
    for (let b = 0; b < CONFIDENCE_BINS; b++) {
      if (this.labels[b]! < MIN_DECILE_LABELS) continue;
      if (!worst || Math.abs(this.gap(b)) > Math.abs(worst.gap)) worst = { bin: b, gap: this.gap(b) };
    }
    return worst;
  }
}

/** Per chunk: whether each strategy's label equals the true-Q label; summed, with the paired differences. */
class Accuracy {
  chunks = 0;
  readonly correct = { f16: 0, f32: 0, adaptive: 0 };
  /** Sums of d and d² for d = adaptive − f32 and adaptive − f16 per chunk (d ∈ {−1, 0, 1}). */
  readonly versus = { f32: [0, 0], f16: [0, 0] };
  add(f16: boolean, f32: boolean, adaptive: boolean): void {
    this.chunks += 1;
    this.correct.f16 += Number(f16);
    this.correct.f32 += Number(f32);
    this.correct.adaptive += Number(adaptive);
    for (const [key, other] of [["f32", f32], ["f16", f16]] as const) {
      const d = Number(adaptive) - Number(other);
      this.versus[key][0]! += d;
      this.versus[key][1]! += d * d;
    }
  }
  share(key: keyof Accuracy["correct"]): number {
    return this.correct[key] / this.chunks;
  }
  /** Mean paired difference and its 95 % half-width. */
  difference(key: keyof Accuracy["versus"]): { mean: number; halfWidth: number } {
    const [sum, squares] = this.versus[key];
    const mean = sum! / this.chunks;
    const variance = (squares! / this.chunks - mean * mean) * (this.chunks / Math.max(1, this.chunks - 1));
    return { mean, halfWidth: 1.96 * Math.sqrt(variance / this.chunks) };
  }
}

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)} %`;
const pts = (x: number, digits = 1) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(digits)} pt`;
const decile = (bin: number) => `${(bin / CONFIDENCE_BINS).toFixed(1)}–${((bin + 1) / CONFIDENCE_BINS).toFixed(1)}`;
const millions = (n: number) => `${(n / 1e6).toFixed(2)} M`;

/** The rows of one reliability table: a summary, then one row per decile with labels. */
function reliabilityRows(prefix: string, table: Reliability): BenchmarkRow[] {
  const confidence = table.confidence.reduce((a, b) => a + b, 0) / table.total;
  const agree = table.agree.reduce((a, b) => a + b, 0) / table.total;
  const rows: BenchmarkRow[] = [
    { metric: `${prefix} · all labels`, value: `${table.total} labels · mean confidence ${pct(confidence)} · agreement ${pct(agree)} · ECE ${(100 * table.ece).toFixed(1)} pt` },
  ];
  for (let b = 0; b < CONFIDENCE_BINS; b++) {
    const n = table.labels[b]!;
    if (n === 0) continue;
    const gap = table.gap(b);
    const value = `${n} labels · mean confidence ${pct(table.confidence[b]! / n)} · agreement ${pct(table.agree[b]! / n)} (± ${(100 * table.halfWidth(b)).toFixed(1)}) · gap ${pts(gap)}`;
    rows.push(
      n >= MIN_DECILE_LABELS
        ? { metric: `${prefix} · confidence ${decile(b)}`, value, target: `gap within ±${100 * GAP_TARGET} pt`, met: Math.abs(gap) <= GAP_TARGET }
        : { metric: `${prefix} · confidence ${decile(b)}`, value: `${value} (fewer than ${MIN_DECILE_LABELS}: no target)` },
    );
  }
  return rows;
}

// ---------- part 2: in-process world ----------

/** A world rollout's outcome: the answer chunk the policy ends with ("So the answer is \boxed{c}."). */
const BOXED = /\\boxed\{(-?\d+)\}/g;
function answerOf(text: string): number | null {
  const all = [...text.matchAll(BOXED)];
  return all.length ? Number(all[all.length - 1]![1]) : null;
}

interface InProcessResult {
  rates: PolicyRates;
  solutions: number;
  chunks: number;
  calibration: Map<LabelRule, Reliability>;
  accuracy: Map<LabelRule, Accuracy>;
  cost: Record<"f16" | "f32" | "adaptive", { rollouts: number; tokens: number }>;
  /** Share of drawn rollouts that succeeded, and the mean true Q of their prefixes. */
  successShare: number;
  meanTrueQ: number;
  /** Adaptive labels (both rules) whose final confidence is still below the target. */
  adaptiveUnsure: number;
  adaptiveLabels: number;
}

async function inProcess(rates: PolicyRates): Promise<InProcessResult> {
  const tag = settingName(rates);
  const calibration = new Map(CALIBRATION_RULES.map((rule) => [rule, new Reliability()]));
  const accuracy = new Map(ADAPTIVE_RULES.map((rule) => [rule, new Accuracy()]));
  const cost = { f16: { rollouts: 0, tokens: 0 }, f32: { rollouts: 0, tokens: 0 }, adaptive: { rollouts: 0, tokens: 0 } };
  let chunkCount = 0;
  let successes = 0;
  let draws = 0;
  let qSum = 0;
  let adaptiveUnsure = 0;
  let adaptiveLabels = 0;
  for (let s = 0; s < IN_PROCESS_SOLUTIONS; s++) {
    const problem: ArithProblem = generateProblem(`label-confidence|${s}`);
    const chunks = sampleSolutionChunks(problem, rates, createRng(`label-confidence|solution|${tag}|${s}`));
    const k = chunks.length;
    chunkCount += k;
    const truth = trueQValues(problem, chunks, rates);
    const finalCorrect = truth.q[k - 1] === 1;
    // Seeds 0..31 of every prefix 0..k-1: the policy continues the prefix's text as the cluster's policy does.
    const outcomes: boolean[][] = [];
    const tokens: number[][] = [];
    for (let j = 0; j < k; j++) {
      const prefixText = j === 0 ? "" : `${serializeChunkTags(chunks.slice(0, j))}\n`;
      const qj = j === 0 ? truth.q0 : truth.q[j - 1]!;
      outcomes.push([]);
      tokens.push([]);
      for (let i = 0; i < LARGE_M; i++) {
        const text = continueSolution(problem, prefixText, rates, createRng(`label-confidence|rollout|${tag}|${s}|${j}|${i}`));
        const ok = answerOf(text) === problem.answer;
        outcomes[j]!.push(ok);
        tokens[j]!.push(simTokenCount(text)); // the count the cluster reports as usage
        successes += Number(ok);
        qSum += qj;
        draws += 1;
      }
    }
    const sample = async (prefixLength: number, indices: readonly number[]) => indices.map((i) => outcomes[prefixLength]![i]!);
    const spend = (estimates: readonly PrefixEstimate[], into: { rollouts: number; tokens: number }) => {
      for (const e of estimates) {
        into.rollouts += e.rollouts;
        for (let i = 0; i < e.rollouts; i++) into.tokens += tokens[e.prefixLength]![i]!;
      }
    };
    const f16 = (await runAnnotationStrategy("fixed", k, finalCorrect, strategySettings(CALIBRATION_M), sample)).estimates;
    const f32 = (await runAnnotationStrategy("fixed", k, finalCorrect, strategySettings(LARGE_M), sample)).estimates;
    const adaptive = (await runAnnotationStrategy("adaptive", k, finalCorrect, strategySettings(LARGE_M), sample)).estimates;
    spend(f16, cost.f16);
    spend(f32, cost.f32);
    spend(adaptive, cost.adaptive);
    for (const rule of CALIBRATION_RULES) {
      const truthLabels = trueLabels(rule, truth);
      const labels = estimatedLabels(rule, f16, finalCorrect);
      const confidences = labelConfidences(rule, labels, evidenceOf(f16, finalCorrect), adaptiveConfig.labelConfidence);
      labels.forEach((label, i) => calibration.get(rule)!.add(confidences[i]!, label === truthLabels[i]));
      if (rule.rule === "abs-q") continue;
      const large = estimatedLabels(rule, f32, finalCorrect);
      const adaptiveEvidence = evidenceOf(adaptive, finalCorrect);
      const adaptiveLabelsOfRule = estimatedLabels(rule, adaptive, finalCorrect);
      labels.forEach((label, i) => accuracy.get(rule)!.add(label === truthLabels[i], large[i] === truthLabels[i], adaptiveLabelsOfRule[i] === truthLabels[i]));
      for (const c of labelConfidences(rule, adaptiveLabelsOfRule, adaptiveEvidence, adaptiveConfig.labelConfidence)) {
        adaptiveLabels += 1;
        if (c! < adaptiveConfig.targetConfidence) adaptiveUnsure += 1;
      }
    }
  }
  return { rates, solutions: IN_PROCESS_SOLUTIONS, chunks: chunkCount, calibration, accuracy, cost, successShare: successes / draws, meanTrueQ: qSum / draws, adaptiveUnsure, adaptiveLabels };
}

/**
 * Control: the confidence's own model. Each prefix's Q is drawn from the
 * Jeffreys prior Beta(½, ½), independently; rollouts are Bernoulli(Q); the
 * finished solution's outcome is Bernoulli(Q_{k−1}). Calibration must hold
 * here up to sampling noise; a miss in the world but not here is the world's
 * Q distribution differing from the prior, not the computation.
 */
function control(): Map<LabelRule, Reliability> {
  const rng = createRng("label-confidence|control");
  const jeffreys = () => Math.sin((rng.nextFloat() * Math.PI) / 2) ** 2; // Beta(½, ½) by inversion
  const tables = new Map(CALIBRATION_RULES.map((rule) => [rule, new Reliability()]));
  for (let s = 0; s < CONTROL_SOLUTIONS; s++) {
    const k = 4 + rng.nextInt(4); // the world's 3–6 steps and the answer
    const q = Array.from({ length: k }, jeffreys);
    const finalCorrect = rng.nextFloat() < q[k - 1]!;
    const counts = q.map((value) => {
      let correct = 0;
      for (let i = 0; i < CALIBRATION_M; i++) if (rng.nextFloat() < value) correct += 1;
      return { correct, rollouts: CALIBRATION_M };
    });
    const truth: Truth = { q0: q[0]!, q: [...q.slice(1), finalCorrect ? 1 : 0] };
    for (const rule of CALIBRATION_RULES) {
      const truthLabels = trueLabels(rule, truth);
      const labels = estimatedLabels(rule, counts, finalCorrect);
      const confidences = labelConfidences(rule, labels, evidenceOf(counts, finalCorrect), adaptiveConfig.labelConfidence);
      labels.forEach((label, i) => tables.get(rule)!.add(confidences[i]!, label === truthLabels[i]));
    }
  }
  return tables;
}

// ---------- part 1: through the pipeline ----------

interface PipelineResult {
  solutions: number;
  chunks: number;
  wrongFinal: number;
  seconds: number;
  runs: Record<"f32" | "adaptive", { rollouts: number; tokens: number; requests: number }>;
  f16: { rollouts: number; tokens: number };
  accuracy: Map<LabelRule, Accuracy>;
  storedChecked: number;
  storedEqual: number;
  sameSeedChecked: number;
  sameSeedEqual: number;
  successShare: number;
  meanTrueQ: number;
}

async function throughPipeline(): Promise<PipelineResult> {
  const started = performance.now();
  const env = await startBenchEnvironment({ "sim-policy": { ...PIPELINE_RATES } });
  const { db, cluster, endpoints } = env;
  try {
    await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 256 } });
    const { datasetId: problemsId } = await createSimWorldDataset(db, { name: "label-confidence problems", problems: PIPELINE_PROBLEMS, seed: 3000, ...PIPELINE_RATES });
    const generated = await createAndExecuteRun(db, { kind: "generate", config: { datasetId: problemsId, policyEndpoint: "policy", samplesPerProblem: 1, filterMixed: false, seed: 7, concurrency: 64 } }, { endpoints });
    if (generated.status !== "completed") throw new Error(`generate run ended ${generated.status}: ${generated.error}`);
    const datasetId = generateOutputDatasetId(generated.id);

    const annotate = async (input: Record<string, unknown>) => {
      const config = annotateHandler.configSchema.parse({ datasetId, policyEndpoint: "policy", seed: 11, concurrency: 64, ...input });
      const run = await db.run.create({ data: { kind: "annotate", config: (await annotateHandler.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, RUN_HANDLERS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (done.status !== "completed") throw new Error(`${String(input.strategy)} run ended ${done.status}: ${done.error}`);
      return { id: run.id, rules: config.labelRules, tokens: Number(done.completionTokens), requests: done.requests };
    };
    process.stderr.write("label-confidence: pipeline, fixed M = 32\n");
    const fixed = await annotate({ strategy: "fixed", rollouts: LARGE_M, labelRules: CALIBRATION_RULES });
    process.stderr.write("label-confidence: pipeline, adaptive\n");
    const adaptive = await annotate({ strategy: "adaptive", labelRules: ADAPTIVE_RULES });

    const solutions = await db.segmentation.findMany({
      where: { trajectory: { datasetId } },
      select: { id: true, trajectory: { select: { problem: { select: { text: true } } } }, chunks: { orderBy: { index: "asc" }, select: { id: true, text: true } } },
    });
    const rolloutsOf = (runId: string) =>
      db.rollout.findMany({ where: { runId }, select: { segmentationId: true, prefixLength: true, sampleIndex: true, correct: true, text: true, completionTokens: true } });
    const [fixedRollouts, adaptiveRollouts] = await Promise.all([rolloutsOf(fixed.id), rolloutsOf(adaptive.id)]);
    const key = (r: { segmentationId: string; prefixLength: number; sampleIndex: number }) => `${r.segmentationId}|${r.prefixLength}|${r.sampleIndex}`;
    const fixedByKey = new Map(fixedRollouts.map((r) => [key(r), r]));
    // adaptive's sample i of a prefix is fixed's sample i: same seed, same text, same grade.
    let sameSeedEqual = 0;
    for (const r of adaptiveRollouts) {
      const twin = fixedByKey.get(key(r));
      if (twin && twin.text === r.text && twin.correct === r.correct) sameSeedEqual += 1;
    }

    const accuracy = new Map(ADAPTIVE_RULES.map((rule) => [rule, new Accuracy()]));
    const f16 = { rollouts: 0, tokens: 0 };
    let storedChecked = 0;
    let storedEqual = 0;
    let successes = 0;
    let qSum = 0;
    let wrongFinal = 0;
    let chunkCount = 0;
    const valuesOf = async (runId: string) => {
      const rows = await db.chunkValue.findMany({ where: { runId }, select: { segmentationId: true, prefixLength: true, rolloutCount: true, correctCount: true } });
      const out = new Map<string, typeof rows>();
      for (const row of rows) out.set(row.segmentationId, [...(out.get(row.segmentationId) ?? []), row]);
      return out;
    };
    const [fixedValues, adaptiveValues] = await Promise.all([valuesOf(fixed.id), valuesOf(adaptive.id)]);
    const storedLabels = async (runId: string) => {
      const rows = await db.chunkLabel.findMany({ where: { runId }, select: { chunkId: true, rule: true, paramsKey: true, label: true, confidence: true } });
      return new Map(rows.map((r) => [`${r.chunkId}|${r.rule}|${r.paramsKey}`, r]));
    };
    const [fixedLabels, adaptiveLabelRows] = await Promise.all([storedLabels(fixed.id), storedLabels(adaptive.id)]);
    const f16Counts = new Map<string, { correct: number; rollouts: number }[]>();
    for (const r of fixedRollouts) {
      successes += Number(r.correct);
      if (r.sampleIndex >= CALIBRATION_M) continue;
      const counts = f16Counts.get(r.segmentationId) ?? [];
      const c = (counts[r.prefixLength] ??= { correct: 0, rollouts: 0 });
      c.rollouts += 1;
      c.correct += Number(r.correct);
      f16Counts.set(r.segmentationId, counts);
      f16.rollouts += 1;
      f16.tokens += r.completionTokens;
    }

    for (const solution of solutions) {
      const problem = parseProblem(solution.trajectory.problem.text);
      const chunkTexts = solution.chunks.map((c) => c.text);
      const k = chunkTexts.length;
      chunkCount += k;
      const truth = trueQValues(problem, chunkTexts, PIPELINE_RATES);
      if (truth.q[k - 1] !== 1) wrongFinal += 1;
      // Stored labels and confidences against core's recomputation from the stored counts.
      const check = (rules: readonly LabelRule[], values: Map<string, { prefixLength: number; rolloutCount: number; correctCount: number }[]>, stored: Awaited<ReturnType<typeof storedLabels>>) => {
        const rows = values.get(solution.id) ?? [];
        const evidence = storedPrefixEvidence(rows, k);
        const counts = rows.filter((r) => r.prefixLength < k).sort((a, b) => a.prefixLength - b.prefixLength).map((r) => ({ correct: r.correctCount, rollouts: r.rolloutCount }));
        const knownFinal = evidence[k] !== null && "known" in evidence[k]! && evidence[k]!.known === 1;
        const labelsByRule = new Map<string, Label[]>();
        for (const rule of rules) {
          const labels = estimatedLabels(rule, counts, knownFinal);
          labelsByRule.set(labelRuleKey(rule), labels);
          const confidences = labelConfidences(rule, labels, evidence, adaptiveConfig.labelConfidence);
          const { rule: storedRule, paramsKey } = storedLabelRule(rule);
          solution.chunks.forEach((chunk, i) => {
            storedChecked += 1;
            const row = stored.get(`${chunk.id}|${storedRule}|${paramsKey}`);
            if (row && row.label === labels[i] && row.confidence !== null && Math.abs(row.confidence - confidences[i]!) <= 1e-9) storedEqual += 1;
          });
        }
        return { labelsByRule, knownFinal };
      };
      const large = check(fixed.rules, fixedValues, fixedLabels);
      const adaptiveLabels = check(adaptive.rules, adaptiveValues, adaptiveLabelRows).labelsByRule;
      const small = f16Counts.get(solution.id)!;
      for (const rule of ADAPTIVE_RULES) {
        const truthLabels = trueLabels(rule, truth);
        const labels = estimatedLabels(rule, small, large.knownFinal); // the run's own grade of the solution, as the stored labels use
        const largeLabels = large.labelsByRule.get(labelRuleKey(rule))!;
        const adaptiveOfRule = adaptiveLabels.get(labelRuleKey(rule))!;
        labels.forEach((label, i) => accuracy.get(rule)!.add(label === truthLabels[i], largeLabels[i] === truthLabels[i], adaptiveOfRule[i] === truthLabels[i]));
      }
      for (let j = 0; j < k; j++) {
        const qj = j === 0 ? truth.q0 : truth.q[j - 1]!;
        qSum += qj * LARGE_M;
      }
    }
    return {
      solutions: solutions.length,
      chunks: chunkCount,
      wrongFinal,
      seconds: (performance.now() - started) / 1000,
      runs: {
        f32: { rollouts: fixedRollouts.length, tokens: fixed.tokens, requests: fixed.requests },
        adaptive: { rollouts: adaptiveRollouts.length, tokens: adaptive.tokens, requests: adaptive.requests },
      },
      f16,
      accuracy,
      storedChecked,
      storedEqual,
      sameSeedChecked: adaptiveRollouts.length,
      sameSeedEqual,
      successShare: successes / fixedRollouts.length,
      meanTrueQ: qSum / fixedRollouts.length,
    };
  } finally {
    await env.close();
  }
}

// ---------- run and report ----------

const pipeline = await throughPipeline();
process.stderr.write(`label-confidence: pipeline part ${pipeline.seconds.toFixed(0)} s\n`);
const inProcessStarted = performance.now();
const worlds: InProcessResult[] = [];
for (const rates of SETTINGS) {
  process.stderr.write(`label-confidence: in-process, ${settingName(rates)}\n`);
  worlds.push(await inProcess(rates));
}
const controlTables = control();
const inProcessSeconds = (performance.now() - inProcessStarted) / 1000;

const rows: BenchmarkRow[] = [];
// A. Calibration: each setting, then pooled, per rule.
for (const rule of CALIBRATION_RULES) {
  for (const world of worlds) rows.push(...reliabilityRows(`A · ${ruleName(rule)} · world ${settingName(world.rates)}`, world.calibration.get(rule)!));
  const pooled = worlds.reduce((table, world) => table.merge(world.calibration.get(rule)!), new Reliability());
  rows.push(...reliabilityRows(`A · ${ruleName(rule)} · pooled`, pooled));
}
for (const rule of CALIBRATION_RULES) {
  const table = controlTables.get(rule)!;
  const worst = table.worst();
  rows.push({
    metric: `A control (Q drawn from the Jeffreys prior) · ${ruleName(rule)}`,
    value: `${table.total} labels · ECE ${(100 * table.ece).toFixed(1)} pt · largest gap (absolute) in a decile with ≥ ${MIN_DECILE_LABELS} labels ${worst ? `${pts(worst.gap)} (${decile(worst.bin)}, ${table.labels[worst.bin]} labels, agreement ± ${(100 * table.halfWidth(worst.bin)).toFixed(1)})` : "—"}`,
  });
}
// B. Cost and accuracy, in-process (judged), per setting.
for (const world of worlds) {
  const name = `B · world ${settingName(world.rates)}`;
  const { f16, f32, adaptive } = world.cost;
  rows.push({
    metric: `${name} · rollouts / generated tokens: fixed M = 16 · fixed M = 32 · adaptive`,
    value: `${f16.rollouts} / ${millions(f16.tokens)} · ${f32.rollouts} / ${millions(f32.tokens)} · ${adaptive.rollouts} / ${millions(adaptive.tokens)}`,
  });
  const share = adaptive.tokens / f32.tokens;
  rows.push({
    metric: `${name} · adaptive's generated tokens ÷ fixed M = 32's`,
    value: `${pct(share)} (rollouts ${pct(adaptive.rollouts / f32.rollouts)}; tokens per rollout ${(adaptive.tokens / adaptive.rollouts).toFixed(1)} vs ${(f32.tokens / f32.rollouts).toFixed(1)})`,
    target: `≤ ${pct(TOKEN_SHARE_TARGET, 0)}`,
    met: share <= TOKEN_SHARE_TARGET,
  });
  for (const rule of ADAPTIVE_RULES) {
    const acc = world.accuracy.get(rule)!;
    rows.push({ metric: `${name} · ${ruleName(rule)} · accuracy against the true-Q labels: fixed M = 16 · fixed M = 32 · adaptive`, value: `${pct(acc.share("f16"), 2)} · ${pct(acc.share("f32"), 2)} · ${pct(acc.share("adaptive"), 2)} (${acc.chunks} chunks)` });
    const vs32 = acc.difference("f32");
    rows.push({ metric: `${name} · ${ruleName(rule)} · adaptive − fixed M = 32`, value: `${pts(vs32.mean, 2)} ± ${(100 * vs32.halfWidth).toFixed(2)} (95 %, paired)`, target: `≥ −${100 * ACCURACY_TOLERANCE} pt`, met: vs32.mean >= -ACCURACY_TOLERANCE });
    const vs16 = acc.difference("f16");
    rows.push({ metric: `${name} · ${ruleName(rule)} · adaptive − fixed M = 16`, value: `${pts(vs16.mean, 2)} ± ${(100 * vs16.halfWidth).toFixed(2)} (95 %, paired)`, target: "> 0", met: vs16.mean > 0 });
  }
  rows.push({ metric: `${name} · adaptive labels still below confidence ${adaptiveConfig.targetConfidence} when it stopped (a prefix at ${adaptiveConfig.maxRollouts})`, value: `${world.adaptiveUnsure} of ${world.adaptiveLabels} (${pct(world.adaptiveUnsure / world.adaptiveLabels)})` });
  rows.push({ metric: `${name} · rollouts: success share vs mean true Q of their prefixes`, value: `${pct(world.successShare, 2)} vs ${pct(world.meanTrueQ, 2)} (${world.cost.f32.rollouts} rollouts)` });
}
// B through the pipeline (one setting): checks, cost and accuracy.
{
  const name = `B pipeline · world ${settingName(PIPELINE_RATES)}`;
  const { f32, adaptive } = pipeline.runs;
  rows.push({ metric: `${name} · solutions / chunks / wrong final answers`, value: `${pipeline.solutions} / ${pipeline.chunks} / ${pipeline.wrongFinal}` });
  rows.push({
    metric: `${name} · rollouts / generated tokens / requests: fixed M = 16 (seeds 0–15 of M = 32) · fixed M = 32 · adaptive`,
    value: `${pipeline.f16.rollouts} / ${pipeline.f16.tokens} / — · ${f32.rollouts} / ${f32.tokens} / ${f32.requests} · ${adaptive.rollouts} / ${adaptive.tokens} / ${adaptive.requests}`,
  });
  rows.push({ metric: `${name} · adaptive's generated tokens ÷ fixed M = 32's (run counters)`, value: `${pct(adaptive.tokens / f32.tokens)} (rollouts ${pct(adaptive.rollouts / f32.rollouts)})` });
  for (const rule of ADAPTIVE_RULES) {
    const acc = pipeline.accuracy.get(rule)!;
    const vs32 = acc.difference("f32");
    rows.push({
      metric: `${name} · ${ruleName(rule)} · accuracy: fixed M = 16 · fixed M = 32 · adaptive`,
      value: `${pct(acc.share("f16"), 2)} · ${pct(acc.share("f32"), 2)} · ${pct(acc.share("adaptive"), 2)} (adaptive − M = 32: ${pts(vs32.mean, 2)} ± ${(100 * vs32.halfWidth).toFixed(2)})`,
    });
  }
  rows.push({ metric: `${name} · stored labels and confidences equal to core's recomputation from the stored counts (both runs, every rule)`, value: `${pipeline.storedEqual} of ${pipeline.storedChecked}`, target: "all", met: pipeline.storedEqual === pipeline.storedChecked });
  rows.push({ metric: `${name} · adaptive's rollouts identical to fixed M = 32's of the same prefix and seed (text and grade)`, value: `${pipeline.sameSeedEqual} of ${pipeline.sameSeedChecked}`, target: "all", met: pipeline.sameSeedEqual === pipeline.sameSeedChecked });
  rows.push({ metric: `${name} · rollouts: success share vs mean true Q of their prefixes`, value: `${pct(pipeline.successShare, 2)} vs ${pct(pipeline.meanTrueQ, 2)}` });
  const world = worlds[0]!;
  rows.push({ metric: `${name} · generated tokens per rollout, pipeline (fixed M = 32) vs in-process (same setting)`, value: `${(f32.tokens / f32.rollouts).toFixed(1)} vs ${(world.cost.f32.tokens / world.cost.f32.rollouts).toFixed(1)}` });
}
rows.push({ metric: "wall time: pipeline part · in-process part (both settings and the control)", value: `${pipeline.seconds.toFixed(0)} s · ${inProcessSeconds.toFixed(0)} s` });

const settingsText = SETTINGS.map((r) => `errorRate ${r.errorRate} / recoveryRate ${r.recoveryRate}`).join(" and ");
const totalChunks = worlds.reduce((n, w) => n + w.chunks, 0);
writeBenchmarkReport({
  name: "label-confidence",
  title: "Label confidence: calibration against the true Q-values, and the adaptive strategy's cost",
  method: [
    `Truth: the world's true Q-value of every prefix (trueQValues; the last chunk's value is the solution's known outcome, 0 or 1); a rule's true label is the rule applied to those values (Abs-Q: Positive iff Q_i > ε = ${ABS_Q_EPSILON}, the confidence's own definition). ` +
      "A label's confidence is core's labelConfidences: Jeffreys Beta(s+½, m−s+½) per prefix, independent, the finished solution known.",
    `In-process part (the targets are judged on it): ${IN_PROCESS_SOLUTIONS} solutions per setting of the world (${settingsText}; ${totalChunks} chunks in all), each written by the world's policy. ` +
      `Every prefix 0..k−1 gets ${LARGE_M} seeded rollouts, each the sim policy's own continuation of the prefix's text (continueSolution, the code the cluster's policy model runs, without HTTP) graded by its boxed answer: an exact draw from the prefix's true Q, its tokens counted with the simulated tokenizer (the usage the cluster reports). ` +
      `Core's runAnnotationStrategy runs fixed M = ${CALIBRATION_M}, fixed M = ${LARGE_M} and adaptive (rules Rel-Ratio(0.7) and Rel-Effective(0.8, 4); the annotate config's defaults: batch ${adaptiveConfig.adaptiveBatch}, target ${adaptiveConfig.targetConfidence}, max ${adaptiveConfig.maxRollouts}) on those rollouts, sample i of a prefix being the same rollout for all three.`,
    `A (calibration): labels and confidences from the fixed M = ${CALIBRATION_M} counts, binned by confidence decile; agreement is the share of labels equal to the true-Q label (± its 95 % binomial half-width); gap = mean confidence − agreement. ` +
      `The target applies to every decile with at least ${MIN_DECILE_LABELS} labels of every table (each setting and pooled); ECE is the label-weighted mean absolute gap. ` +
      `The control draws each prefix's Q from the Jeffreys prior itself (${CONTROL_SOLUTIONS} solutions of 4–7 chunks, M = ${CALIBRATION_M} Bernoulli rollouts, the outcome Bernoulli(Q_{k−1})), where the posterior is exact: it tells the computation apart from the prior's fit to the world.`,
    "B (cost): accuracy of each strategy's labels against the true-Q labels over all chunks; adaptive − fixed is the paired difference per chunk with its 95 % normal interval; tokens are the drawn rollouts' tokens, rollouts the drawn rollouts.",
    `Pipeline part (no targets, checks): ${PIPELINE_PROBLEMS} world problems (errorRate ${PIPELINE_RATES.errorRate} / recoveryRate ${PIPELINE_RATES.recoveryRate}) whose solutions the sim-policy endpoint wrote through a generate run, annotated on a 4-replica simulated cluster by a fixed M = ${LARGE_M} run (Abs-Q, Rel-Ratio, Rel-Effective) and an adaptive run (the two relative rules, defaults) with the same seed. ` +
      `Fixed M = ${CALIBRATION_M} is the M = ${LARGE_M} run's rollout rows with sampleIndex < ${CALIBRATION_M} (the same rollouts a fixed M = ${CALIBRATION_M} run draws, by seed), labelled with core; its tokens are those rows' completionTokens (the server reports usage per request, spread evenly over its samples); the two runs' tokens are their completion-token counters. Both runs' stored labels and confidences are checked against core's recomputation from their stored counts.`,
    "Reading: the top decile holds most labels and is calibrated in every table. The misses sit in the lower and middle deciles, where the control is calibrated within its sampling noise: they are the Jeffreys prior's misfit to this world's Q-values, not the computation. " +
      `An Abs-Q Negative from 0 of ${CALIBRATION_M} always has confidence P(Q ≤ ε) ≈ 0.43 under the Jeffreys posterior, but in this world most such prefixes are the step before a wrong answer, whose Q is exactly 0, so those labels are right far more often than 43 %. ` +
      "Adaptive stops early on sure prefixes, but labels near a rule's threshold stay unsure up to the maximum, and the prefixes it keeps sampling lie earlier than the average prefix, so their rollouts are longer: its tokens per rollout exceed fixed's, and its token share is above its rollout share.",
  ].join("\n\n"),
  limits:
    "The simulated world knows every prefix's true Q-value: the policy continues a prefix as a two-state Markov chain (a new error with probability errorRate per step, recovery with probability recoveryRate), so every rollout is an exact, independent draw from a known Q and is graded without error. " +
    "Bayesian calibration holds when the prior matches the population of Q-values the labels rest on; this world's Q-values take a few discrete values per solution length (and exactly 0 or 1 on the prefix before the answer), far from Beta(½, ½), so the calibration measured here is of the Jeffreys posterior on this world's distribution only — the control shows the computation itself is calibrated when the prior is right. " +
    "Real policies' rollouts from one prefix are correlated (shared misreadings), graded by an imperfect grader, cut off by token limits, and their Q-values are spread differently along a solution; the numbers cannot show how calibrated the confidences are on a real model, how many labels fall in each decile there, nor what adaptive saves there, which depends on how many of a real solution's chunks sit near a rule's threshold and how long their rollouts are.",
  rows,
});
