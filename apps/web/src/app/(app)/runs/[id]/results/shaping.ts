import type { RouterOutputs } from "@stepwiser/api";
import { averageLabel, isJudgeProtocolId, JUDGE_PROTOCOLS } from "@stepwiser/core";
import { againstEstimate, amount, coefficient, count, countWithShare, percent, percentWithInterval, points } from "./format";

/**
 * What each run kind's result view shows, shaped from `run.results`: rows,
 * bars and links, every number already formatted. No React: the views only
 * lay these out, and apps/web/test/run-results.test.ts tests them.
 */

export type RunResults = RouterOutputs["run"]["results"];
export type ResultsOf<K extends RunResults["kind"]> = Extract<RunResults, { kind: K }>;

/** A named value of a results panel (a fact list row). */
export interface Fact {
  label: string;
  value: string;
  /** A short note after the value (what it is measured against). */
  note?: string;
}

/** The inspector at one chunk of a solution (its permalink anchor). */
export function chunkHref(solutionId: string, index: number): string {
  return `/solutions/${encodeURIComponent(solutionId)}#chunk-${index}`;
}

/** Compare with this run preselected on its dataset, Metrics tab (the URL format of compare-params.ts). */
export function compareHref(datasetId: string, runId: string): string {
  const query = new URLSearchParams({ dataset: datasetId, runs: runId, tab: "metrics" });
  return `/compare?${query.toString()}`;
}

// ── annotate ──

/** Label balance per rule: Positive and Negative counts and the Negative share. */
export function labelBalanceRows(result: ResultsOf<"annotate">) {
  return result.labelBalance.map((row) => {
    const total = row.positive + row.negative;
    return { key: `${row.rule}|${row.paramsKey}`, rule: row.rule, paramsKey: row.paramsKey, name: row.name, positive: count(row.positive), negative: count(row.negative), negativeShare: total ? percent(row.negative / total) : "—", total };
  });
}

/** Q-value histogram bars: "0.0–0.1" … "0.9–1.0" with their chunk counts. */
export function qValueBars(result: ResultsOf<"annotate">) {
  return result.qValues.map((b) => ({ bin: `${b.from.toFixed(1)}–${b.to.toFixed(1)}`, chunks: b.count }));
}

/** Rollouts, requests and tokens: what the run used, what the plan estimated, and how far apart they are. */
export function usageRows(result: ResultsOf<"annotate">) {
  const { actual, estimate } = result.usage;
  const rows: { measure: string; actual: number; estimate: number | null }[] = [
    { measure: "Rollouts", actual: actual.rollouts, estimate: estimate?.rollouts ?? null },
    { measure: "Requests", actual: actual.requests, estimate: estimate?.requests ?? null },
    { measure: "Prompt tokens", actual: actual.promptTokens, estimate: estimate?.promptTokens ?? null },
    { measure: "Generated tokens", actual: actual.generatedTokens, estimate: estimate?.generatedTokens ?? null },
  ];
  return rows.map((r) => ({
    measure: r.measure,
    actual: count(r.actual),
    estimate: r.estimate === null ? "—" : count(Math.round(r.estimate)),
    difference: againstEstimate(r.actual, r.estimate),
  }));
}

// ── judge ──

const VERDICTS = ["Positive", "Negative", "unparseable"] as const;

/** Verdict distribution over every sample of the run, with shares. */
export function verdictRows(result: ResultsOf<"judge">) {
  const summary = result.summary;
  if (!summary) return [];
  return VERDICTS.map((verdict) => {
    const n = summary.verdicts[verdict] ?? 0;
    return { verdict, samples: n, share: summary.samples ? percent(n / summary.samples) : "—" };
  });
}

type Agreement = ResultsOf<"judge">["agreements"][number];

/** What an agreement is measured against, in words. */
export function referenceName(reference: Agreement["reference"]): string {
  switch (reference.kind) {
    case "source":
      return "Source first errors";
    case "prmbench":
      return "PRMBench gold step labels (error steps)";
    case "imported-ratings":
      return "Imported human ratings (+1 / −1)";
    case "imported":
      return `Imported step labels · ${reference.runLabel}`;
    case "annotate":
      return `${reference.ruleName} · ${reference.runLabel}`;
  }
}

/** A stable key per reference. */
function referenceKey(reference: Agreement["reference"]): string {
  if (reference.kind === "annotate") return `${reference.runId}|${reference.rule}|${reference.paramsKey}`;
  if (reference.kind === "imported") return `${reference.runId}|imported`;
  return reference.kind;
}

/** One agreement as a card: headline numbers, the matrix (rows: reference, columns: judge), and links to disagreeing chunks. */
export function agreementView(agreement: Agreement) {
  const { counts } = agreement.matrix;
  const withUnparseable = counts.Positive.unparseable + counts.Negative.unparseable > 0;
  const columns = withUnparseable ? VERDICTS : (["Positive", "Negative"] as const);
  return {
    key: referenceKey(agreement.reference),
    title: referenceName(agreement.reference),
    annotateRunId: agreement.reference.kind === "annotate" ? agreement.reference.runId : null,
    facts: [
      { label: "Chunks compared", value: count(agreement.chunks) },
      { label: "F1 (Negative)", value: percent(agreement.negative.f1), note: `precision ${percent(agreement.negative.precision)}, recall ${percent(agreement.negative.recall)}` },
      { label: "Cohen's κ", value: coefficient(agreement.kappa), note: agreement.observedAgreement === null ? undefined : `agreement ${percent(agreement.observedAgreement)}` },
      { label: "Accuracy", value: percent(agreement.accuracy), note: `balanced ${percent(agreement.balancedAccuracy)}` },
      { label: "F1 (Positive)", value: percent(agreement.positive.f1), note: `precision ${percent(agreement.positive.precision)}, recall ${percent(agreement.positive.recall)}` },
      {
        label: "Solutions: has an error, F1",
        value: percent(agreement.solutions.f1),
        note: `${count(agreement.solutions.withError)} of ${count(agreement.solutions.solutions)} solutions have an error; the judge flags ${count(agreement.solutions.flagged)}`,
      },
    ] satisfies Fact[],
    columns: [...columns],
    rows: (["Positive", "Negative"] as const).map((reference) => ({ reference, cells: columns.map((judge) => ({ judge, count: count(counts[reference][judge]), agrees: judge === reference })) })),
    disagreements: agreement.disagreements.listed.map((d) => ({
      key: d.chunkId,
      href: chunkHref(d.solutionId, d.index),
      text: `${d.externalId} #${d.index}`,
      judge: d.judge,
      reference: d.reference,
    })),
    moreDisagreements: agreement.disagreements.total - agreement.disagreements.listed.length,
    totalDisagreements: agreement.disagreements.total,
  };
}

// ── benchmark ──

/**
 * The judge protocol a benchmark spoke, from its summary's `id@vN`; summaries written
 * before protocols name their `mode` instead (chunk-judge: the StepWiser chunk judge,
 * critic: the ProcessBench critic, both at version 1).
 */
export function benchmarkProtocol(summary: { protocol: string | null; mode: "chunk-judge" | "critic" | null }): { label: string; ref: string } | null {
  // Version 1 by name, not the registry's current version: those runs spoke v1 whatever the protocols have become since.
  const ref = summary.protocol ?? (summary.mode === "critic" ? "processbench-critic@v1" : summary.mode === "chunk-judge" ? "stepwiser-chunk@v1" : null);
  if (ref === null) return null;
  const id = ref.replace(/@v\d+$/, "");
  return { label: isJudgeProtocolId(id) ? JUDGE_PROTOCOLS[id].label : id, ref };
}

/** The Protocol fact: its label, with its id@vN and the judge model as the note. */
export function benchmarkProtocolFact(summary: { protocol: string | null; mode: "chunk-judge" | "critic" | null; judge: string | null }): Fact {
  const protocol = benchmarkProtocol(summary);
  const note = [protocol?.ref, summary.judge].filter(Boolean).join(" · ");
  return { label: "Protocol", value: protocol?.label ?? "unknown", ...(note ? { note } : {}) };
}

/**
 * The run's facts above the table: its average F1 with its interval, named for
 * what it is over ("Partial average F1" and "partial average (2 of 4 subsets:
 * gsm8k, math)" unless it is over ProcessBench's four subsets), the protocol, and
 * the predictions scored as wrong. On a PRMBench run these are the first-error
 * reading, named so (its protocol and outputs are with its PRMBench scores).
 */
export function benchmarkFacts(result: ResultsOf<"benchmark">): Fact[] {
  const s = result.summary;
  if (!s) return [];
  if (result.prmbench) {
    return [
      {
        label: "First-error average F1",
        value: s.scored === 0 ? "—" : percentWithInterval(s.averageF1.estimate, s.averageF1.lower, s.averageF1.upper),
        note: `not PRMBench's metric: ProcessBench's F1 read from each item's first error step, unweighted over the classes (${averageLabel(s.subsetsInAverage)})`,
      },
      { label: "Unparseable predictions", value: count(s.unparseable), note: "scored as wrong in this reading" },
      { label: "Solutions without a prediction", value: count(s.missing), note: "scored as wrong in this reading" },
    ];
  }
  // A score over no solution is not a score: say so instead of showing 0.
  const average: Fact =
    s.scored === 0
      ? { label: "Average F1", value: "—", note: "no solution was scored: the run judged nothing (its segmentation method matches no solution of the dataset)" }
      : {
          label: s.averageIsPartial ? "Partial average F1" : "Average F1",
          value: percentWithInterval(s.averageF1.estimate, s.averageF1.lower, s.averageF1.upper),
          note: `${averageLabel(s.subsetsInAverage)}, unweighted; its interval resamples each subset within itself`,
        };
  return [
    average,
    benchmarkProtocolFact(s),
    ...(s.promptTemplateId ? [{ label: "Prompt template", value: s.promptTemplateId }] : []),
    { label: "Unparseable predictions", value: count(s.unparseable), note: "scored as wrong" },
    { label: "Solutions without a prediction", value: count(s.missing), note: "scored as wrong" },
    judgeOutputsFact(s.judgeOutputs),
  ];
}

/** A judge run's outputs counted, cut ones apart from unreadable ones. */
export function judgeOutputsFact(outputs: { outputs: number; truncated: number; unparseable: number } | null | undefined): Fact {
  if (!outputs) return { label: "Judge outputs", value: "—", note: "not counted: the run predates the count of truncated outputs" };
  return {
    label: "Judge outputs",
    value: count(outputs.outputs),
    note: `${count(outputs.truncated)} truncated (hit the generation limit) · ${count(outputs.unparseable)} unparseable (ended without a readable answer)`,
  };
}

/** What the intervals are, and where they come from when the summary predates some of them. */
export function benchmarkIntervalsNote(result: ResultsOf<"benchmark">): string {
  const method = "Per subset, in %, with 95 % percentile-bootstrap intervals over the subset's solutions, the same method for F1, acc_err and acc_cor (and the one Compare uses)";
  return result.summary?.intervals === "recomputed" ? `${method}; this run's summary predates the accuracy and average intervals, so they are recomputed from its stored predictions` : method;
}

/** An accuracy with its interval and its hits: "50.0 % [23.7, 76.3] (5/10)"; "—" for a class the subset has no solution of. */
function accuracyText(accuracy: ResultsOf<"benchmark">["subsets"][number]["accErr"]): string {
  return accuracy ? `${percentWithInterval(accuracy.estimate, accuracy.lower, accuracy.upper)} (${count(accuracy.hits)}/${count(accuracy.of)})` : "—";
}

/**
 * Why a built-in simulated judge scores what it scores: its configured per-chunk
 * accuracy compounds over a solution's chunks (a correct solution counts only if
 * every chunk is voted Positive), so the expected figures on these solutions sit
 * beside the measured ones. Null for any other judge.
 */
export function simulatorExpectationNote(result: ResultsOf<"benchmark">): { title: string; text: string; facts: Array<{ label: string; value: string; note?: string }> } | null {
  const e = result.simulatorExpectation;
  if (!e) return null;
  const pooled = (pick: (s: ResultsOf<"benchmark">["subsets"][number]) => { hits: number; of: number } | null) => {
    const parts = result.subsets.map(pick).filter((a): a is { hits: number; of: number } => a !== null);
    const of = parts.reduce((n, a) => n + a.of, 0);
    return of ? parts.reduce((n, a) => n + a.hits, 0) / of : null;
  };
  const accErr = pooled((s) => s.accErr);
  const accCor = pooled((s) => s.accCor);
  const f1 = accErr !== null && accCor !== null ? (accErr + accCor > 0 ? (2 * accErr * accCor) / (accErr + accCor) : 0) : null;
  const measured = (value: number | null) => (value === null ? undefined : `measured ${percent(value)}`);
  const chunks = e.meanChunksCorrect === null ? "" : ` Here the correct solutions have ${amount(e.meanChunksCorrect)} chunks on average, each a chance to flag one wrongly.`;
  return {
    title: `Why ${e.judge} scores this`,
    text:
      `${e.judge} is a simulated judge: it knows each chunk's truth and answers it rightly with probability ${percent(e.accuracy)}, independently per chunk ` +
      `(Positive bias ${percent(e.positiveBias)}, ${percent(e.unparseableRate)} unreadable answers), ${e.samples === 1 ? "one sample" : `${e.samples} samples voted`} per chunk. ` +
      `A chunk's vote is Positive on a right chunk with probability ${percent(e.chunkPositiveGivenPositive)} and Negative on a wrong one with ${percent(e.chunkNegativeGivenNegative)}; ` +
      `a correct solution is scored correct only if every one of its chunks is voted Positive, and a wrong one only if every chunk before its first error is.${chunks} ` +
      "The expected figures below follow from that configuration alone; they describe the simulator, not how a real judge of that accuracy would do on ProcessBench, where per-chunk errors are neither independent nor this frequent.",
    facts: [
      { label: "Expected acc_err", value: e.acc_err === null ? "—" : percent(e.acc_err), note: measured(accErr) },
      { label: "Expected acc_cor", value: e.acc_cor === null ? "—" : percent(e.acc_cor), note: measured(accCor) },
      { label: "Expected F1", value: e.f1 === null ? "—" : percent(e.f1), note: measured(f1) },
    ],
  };
}

export function benchmarkRows(result: ResultsOf<"benchmark">) {
  return result.subsets.map((s) => ({
    subset: s.subset,
    solutions: count(s.n),
    withError: count(s.nError),
    withoutError: count(s.nCorrect),
    f1: percentWithInterval(s.f1.estimate, s.f1.lower, s.f1.upper),
    accErr: accuracyText(s.accErr),
    accCor: accuracyText(s.accCor),
    f1Value: s.f1.estimate,
  }));
}

// ── PRMBench ──

type Prmbench = NonNullable<ResultsOf<"benchmark">["prmbench"]>;
type PrmbenchFigure = Prmbench["totals"]["f1"];
type PrmbenchClassRow = Prmbench["classes"][number];

/** How the evaluator's "undefined" (a ratio whose denominator is 0, printed as -1) reads here. */
export const PRMBENCH_UNDEFINED = "undefined (−1)";

/** An interval bound in %, one decimal; a negative bound comes from resamples where the ratio is undefined (−1). */
const prmbenchBound = (bound: number) => (bound < 0 ? "undefined" : (bound * 100).toFixed(1));

/** F1 or negative F1 with its interval: "61.9 % [55.0, 68.2]"; the evaluator's −1 as "undefined (−1)", never as a score. */
export function prmbenchFigureText(figure: PrmbenchFigure): string {
  if (figure.estimate < 0) return PRMBENCH_UNDEFINED;
  const bounds = figure.lower === null || figure.upper === null ? "" : ` [${prmbenchBound(figure.lower)}, ${prmbenchBound(figure.upper)}]`;
  return `${percent(figure.estimate)}${bounds}`;
}

/**
 * PRMScore with its interval. It is 0.5 · F1 + 0.5 · F1_neg as the evaluator computes it, so
 * where either is undefined (−1) the number it prints is no score: it reads as undefined,
 * naming the part that is.
 */
export function prmscoreText(figures: Pick<Prmbench["totals"], "prmscore" | "f1" | "negativeF1">): string {
  if (figures.prmscore.estimate === -1) return PRMBENCH_UNDEFINED;
  const undefinedParts = [figures.f1.estimate === -1 ? "F1" : null, figures.negativeF1.estimate === -1 ? "F1_neg" : null].filter(Boolean);
  if (undefinedParts.length > 0) return `undefined (${undefinedParts.join(" and ")} −1)`;
  return prmbenchFigureText(figures.prmscore);
}

/** What the PRMBench intervals are. */
export const PRMBENCH_INTERVALS_NOTE =
  "As PRMBench's evaluator scores every step (0.5 · F1 + 0.5 · F1_neg over the modified items' steps), in %, with 95 % percentile-bootstrap intervals over items: the totals resample the scored modified items, each class its own items. −1 is the evaluator's value for a ratio with nothing to count: shown as undefined.";

/** A PRMBench run's totals: PRMScore, F1 and F1_neg with their intervals, the items scored, invalid and missing, the protocol and the judge's outputs. */
export function prmbenchFacts(result: ResultsOf<"benchmark">): Fact[] {
  const p = result.prmbench;
  const s = result.summary;
  if (!p || !s) return [];
  const t = p.totals;
  return [
    { label: "PRMScore", value: prmscoreText(t), note: "0.5 · F1 + 0.5 · F1_neg, PRMBench's metric" },
    { label: "F1", value: prmbenchFigureText(t.f1), note: "of the correct steps (judged correct)" },
    { label: "F1_neg", value: prmbenchFigureText(t.negativeF1), note: "of the error steps (judged wrong)" },
    { label: "Items scored", value: count(t.n), note: "modified items; the all-correct items are scored apart" },
    { label: "Invalid", value: count(p.invalid), note: "judged, but the output reads as no step labels: left out, as the evaluator leaves out invalid outputs" },
    { label: "Missing", value: count(p.missing), note: "not judged: left out" },
    benchmarkProtocolFact(s),
    ...(s.promptTemplateId ? [{ label: "Prompt template", value: s.promptTemplateId }] : []),
    judgeOutputsFact(s.judgeOutputs),
  ];
}

/** One class row: its name in the data, PRMBench's label and dimension, n and the three figures. */
function prmbenchClassRow(c: PrmbenchClassRow) {
  return {
    key: c.classification,
    classification: c.classification,
    label: c.abbreviation && c.name ? `${c.name} (${c.abbreviation})` : c.classification === "correct" ? "All-correct items (no error step)" : "— (not a PRMBench class)",
    dimension: c.dimension?.name ?? "—",
    n: count(c.n),
    // PRMBench's tables score a class without error steps by its F1 alone (its F1_neg has no error step to measure).
    prmscore: c.f1Only ? (c.f1.estimate < 0 ? PRMBENCH_UNDEFINED : `${prmbenchFigureText(c.f1)} (F1)`) : prmscoreText(c),
    f1: prmbenchFigureText(c.f1),
    // With no error step F1_neg measures nothing: the evaluator's value (0 once any step is judged wrong) is shown as that, without an interval.
    negativeF1: c.f1Only && c.negativeF1.estimate >= 0 ? `${percent(c.negativeF1.estimate)} (no error step to find)` : prmbenchFigureText(c.negativeF1),
    note: c.f1Only ? "no error step: scored by its F1, as PRMBench's tables score it" : null,
    prmscoreValue: c.prmscore.estimate,
  };
}

/** The evaluated classes, in PRMBench's table order (each in the totals). */
export function prmbenchClassRows(result: ResultsOf<"benchmark">) {
  return (result.prmbench?.classes ?? []).filter((c) => c.inTotals).map(prmbenchClassRow);
}

/** The all-correct items (`correct`), shown apart: they are not in the totals. */
export function prmbenchCorrectRows(result: ResultsOf<"benchmark">) {
  return (result.prmbench?.classes ?? []).filter((c) => !c.inTotals).map(prmbenchClassRow);
}

// ── generate ──

export function generateFacts(result: ResultsOf<"generate">): Fact[] {
  const s = result.summary;
  if (!s) return [];
  return [
    { label: "Accuracy (pass@1)", value: percent(s.accuracy), note: `${count(s.correct)} of ${count(s.solutions)} solutions correct` },
    { label: "Problems", value: count(s.problems), note: s.problemsWithoutReference > 0 ? `${count(s.problemsWithoutReference)} without a reference answer` : undefined },
    { label: "Solutions", value: count(s.solutions) },
    { label: "Truncated samples", value: countWithShare(s.truncatedSamples, s.solutions), note: "stopped at the token limit" },
    { label: "Not self-segmented", value: countWithShare(s.invalidSegmentations, s.solutions), note: "no valid chunk tags" },
  ];
}

/** The prompt filter: how the problems split by their samples' correctness, and what it kept. */
export function promptFilterFacts(result: ResultsOf<"generate">): Fact[] {
  const s = result.summary;
  if (!s) return [];
  const f = s.filter;
  return [
    { label: "Mixed (kept)", value: countWithShare(f.mixed, s.problems), note: "some samples right, some wrong" },
    { label: "All correct", value: countWithShare(f.allCorrect, s.problems) },
    { label: "All wrong", value: countWithShare(f.allWrong, s.problems) },
    { label: "Kept", value: countWithShare(f.kept, s.problems), note: f.enabled ? "the filter was on: only mixed problems kept" : "the filter was off: every problem kept" },
  ];
}

export function solutionShapeFacts(result: ResultsOf<"generate">): Fact[] {
  const s = result.summary;
  if (!s) return [];
  const chunks = s.selfSegmented.chunksPerSolution;
  const length = result.solutionLength;
  return [
    { label: "Chunks per solution", value: amount(chunks.mean), note: chunks.mean === null ? undefined : `median ${amount(chunks.median)}, ${amount(chunks.min)}–${amount(chunks.max)}` },
    { label: "Solution length", value: length ? `${amount(length.mean)} characters` : "—", note: length ? `median ${amount(length.median)}, ${amount(length.min)}–${amount(length.max)}` : undefined },
    { label: "Generated tokens per solution", value: amount(result.tokensPerSolution), note: "the run's generated tokens over the solutions written" },
    { label: "Characters per chunk", value: amount(s.selfSegmented.charactersPerChunk.mean), note: s.selfSegmented.charactersPerChunk.median === null ? undefined : `median ${amount(s.selfSegmented.charactersPerChunk.median)}` },
  ];
}

export function chunksPerSolutionBars(result: ResultsOf<"generate">) {
  return result.chunksPerSolution.map((b) => ({ bin: b.orMore ? `${b.chunks}+` : String(b.chunks), solutions: b.solutions }));
}

// ── chunk reset ──

export function chunkResetView(result: ResultsOf<"chunk_reset">) {
  const s = result.summary;
  if (!s) return null;
  const spent = s.tokens.accepted + s.tokens.rejected;
  return {
    bars: [
      { name: "Chunk reset", accuracy: s.accuracy.chunkReset, label: percent(s.accuracy.chunkReset) },
      { name: "Plain sampling (baseline)", accuracy: s.accuracy.plain, label: percent(s.accuracy.plain) },
    ],
    facts: [
      { label: "Accuracy with chunk reset", value: percent(s.accuracy.chunkReset), note: `${points(s.accuracy.chunkReset - s.accuracy.plain)} against plain sampling` },
      { label: "Accuracy of plain sampling", value: percent(s.accuracy.plain), note: "the baseline: the same problems without resets" },
      { label: "Problems", value: count(s.problems) },
      { label: "Accepted tokens", value: count(s.tokens.accepted), note: spent ? `${percent(s.tokens.accepted / spent)} of the tokens generated with resets` : undefined },
      { label: "Rejected tokens", value: count(s.tokens.rejected), note: "chunks the judge rejected and sampled again" },
      { label: "Plain sampling tokens", value: count(s.tokens.plain), note: s.tokens.plain ? `resets generated ${amount(spent / s.tokens.plain)}× as many` : undefined },
      { label: "Resets per problem", value: amount(s.resetsPerProblem) },
      judgeOutputsFact(s.judgeOutputs),
      ...(s.judgePromptTemplateId ? [{ label: "Judge prompt", value: s.judgePromptTemplateId }] : []),
      ...(s.policyPromptTemplateId ? [{ label: "Policy prompt", value: s.policyPromptTemplateId }] : []),
    ] satisfies Fact[],
  };
}

// ── best of N ──

const BEST_OF_N = [
  { key: "mean", name: "Judge: mean chunk score", baseline: false },
  { key: "min", name: "Judge: lowest chunk score", baseline: false },
  { key: "last", name: "Judge: last chunk score", baseline: false },
  { key: "majority", name: "Majority vote (baseline)", baseline: true },
  { key: "random", name: "Random pick (baseline)", baseline: true },
  { key: "oracle", name: "Oracle (upper bound)", baseline: true },
] as const;

/** Accuracy of the pick per aggregation, against majority vote, a random pick and the oracle. */
export function bestOfNView(result: ResultsOf<"best_of_n">) {
  const s = result.summary;
  if (!s) return null;
  const majority = s.accuracy.majority;
  return {
    problems: count(s.problems),
    facts: [judgeOutputsFact(s.judgeOutputs), ...(s.judgePromptTemplateId ? [{ label: "Judge prompt", value: s.judgePromptTemplateId }] : [])] satisfies Fact[],
    bars: BEST_OF_N.map((b) => ({ key: b.key, name: b.name, baseline: b.baseline, accuracy: s.accuracy[b.key], label: percent(s.accuracy[b.key]) })),
    rows: BEST_OF_N.map((b) => ({ key: b.key, name: b.name, accuracy: percent(s.accuracy[b.key]), againstMajority: b.key === "majority" ? "—" : points(s.accuracy[b.key] - majority) })),
  };
}

// ── segment, import, export ──

/** The inspector's page of a solution. */
export function solutionHref(solutionId: string): string {
  return `/solutions/${encodeURIComponent(solutionId)}`;
}

type SegmentSummary = NonNullable<ResultsOf<"segment">["summary"]>;

/**
 * A segmenter run's attempts: the limit and requests made, and per attempt (1 up to the
 * last one any solution needed) the solutions it reconstructed, with their share of all
 * this run stored, the share reconstructed by then, and a bar width against the largest.
 */
function attemptsView(attempts: NonNullable<SegmentSummary["attempts"]>) {
  const accepted = attempts.acceptedAt.reduce((n, a) => n + a.solutions, 0);
  const last = Math.max(1, ...attempts.acceptedAt.map((a) => a.attempt));
  const byAttempt = new Map(attempts.acceptedAt.map((a) => [a.attempt, a.solutions]));
  const most = Math.max(0, ...attempts.acceptedAt.map((a) => a.solutions));
  let sofar = 0;
  const rows = Array.from({ length: last }, (_, i) => {
    const attempt = i + 1;
    const solutions = byAttempt.get(attempt) ?? 0;
    sofar += solutions;
    return {
      key: String(attempt),
      attempt: `Attempt ${count(attempt)}`,
      solutions: count(solutions),
      share: accepted ? percent(solutions / accepted) : "—",
      byThen: accepted ? percent(sofar / accepted) : "—",
      /** The bar's width in % of the widest (the attempt that reconstructed the most). */
      width: most ? (solutions / most) * 100 : 0,
    };
  });
  return {
    facts: [
      { label: "Attempt limit", value: count(attempts.limit), note: "answers asked per solution at most, until one reconstructs it" },
      { label: "Segmenter requests", value: count(attempts.requests), note: accepted ? `${amount(attempts.requests / accepted)} per stored solution, rejected attempts included` : undefined },
      { label: "Reconstructed at the first attempt", value: countWithShare(byAttempt.get(1) ?? 0, accepted) },
    ] satisfies Fact[],
    rows,
  };
}

export function segmentView(result: ResultsOf<"segment">) {
  const s = result.summary;
  if (!s) return null;
  const listed = s.neverReconstructed ?? [];
  const invalidNote = s.validShare === null ? undefined : s.attempts ? `${percent(s.validShare)} of the solutions asked reconstructed within ${count(s.attempts.limit)} attempts` : `${percent(s.validShare)} of the segmenter's answers valid`;
  return {
    facts: [
      { label: "Method", value: s.method },
      { label: "Solutions", value: count(s.solutions) },
      { label: "Segmented now", value: countWithShare(s.created, s.solutions) },
      { label: "Already segmented", value: countWithShare(s.skippedExisting, s.solutions), note: "kept as they were" },
      { label: "Invalid segmentations", value: countWithShare(s.invalid, s.solutions), note: invalidNote },
      { label: "Failed units", value: count(s.failedUnits) },
    ] satisfies Fact[],
    /** llm-segmenter runs since attempts were counted; null for rules and older runs. */
    attempts: s.attempts ? attemptsView(s.attempts) : null,
    /** The responses no attempt reconstructed (the first 100), their error as the text it is. */
    neverReconstructed: listed.map((n) => ({
      key: n.solutionId,
      href: solutionHref(n.solutionId),
      externalId: n.externalId,
      attempts: count(n.attempts),
      kind: n.kind,
      error: n.error,
    })),
    /** Never reconstructed but not listed (the summary lists the first 100). */
    moreNeverReconstructed: s.neverReconstructed ? Math.max(0, s.invalid - listed.length) : 0,
    methods: s.byMethod.map((m) => ({
      method: m.method,
      solutions: count(m.solutions),
      chunks: count(m.chunks),
      chunksPerSolution: amount(m.chunksPerSolution.mean),
      charactersPerChunk: amount(m.charactersPerChunk.mean),
      tokensPerChunk: amount(m.tokensPerChunk.mean),
      oneLine: percent(m.oneLineChunkShare),
    })),
  };
}

export function importFacts(result: ResultsOf<"import">): Fact[] {
  const s = result.summary;
  if (!s) return [];
  if ("targetRunId" in s) {
    return [
      { label: "Format", value: "OpenAI batch output" },
      { label: "Requests stored", value: count(s.requests), note: `for run ${s.targetRunId}` },
      { label: "Samples stored", value: count(s.samples) },
      { label: "Skipped", value: count(s.skipped) },
    ];
  }
  const facts: Fact[] = [
    { label: "Format", value: s.format },
    { label: "Solutions read", value: count(s.records) },
    { label: "Solutions written", value: countWithShare(s.written, s.records) },
    { label: "Skipped (duplicates)", value: count(s.skipped) },
    { label: "Replaced", value: count(s.replaced) },
    { label: "Chunks", value: count(s.chunks), note: s.written ? `${amount(s.chunks / s.written)} per solution` : undefined },
    { label: "Chunk labels", value: count(s.chunkLabels) },
    { label: "Human labels", value: count(s.humanLabels) },
  ];
  if (s.duplicateOfRunId) facts.unshift({ label: "Identical file", value: "imported before: nothing written", note: `run ${s.duplicateOfRunId}` });
  return facts;
}

/** An export's files (with download links) and the scalar facts of its report. */
export function exportView(result: ResultsOf<"export">) {
  const s = result.summary;
  if (!s) return null;
  return {
    kind: s.kind,
    files: s.files.map((f) => ({ id: f.id, name: f.fileName, href: `/api/files/${encodeURIComponent(f.id)}`, size: f.sizeBytes })),
    facts: s.facts.map((f): Fact => ({ label: f.name, value: typeof f.value === "number" ? (Number.isInteger(f.value) ? count(f.value) : amount(f.value)) : String(f.value) })),
  };
}
