import type { BootstrapOptions } from "../stats/bootstrap";
import { bootstrapIntervals } from "../stats/stratified-bootstrap";
import { PRMBENCH_CORRECT_CLASS, type PrmbenchItem } from "./items";

/*
 * PRMBench's score, as `evaluate_function` and `eval_on_hallucination_step` in
 * mr_eval/tasks/prmtest_classified/task.py (github.com/ssmisya/PRMBench, commit cc7db59)
 * compute it, with PRMScore as its authors' `get_prmscore_from_current_res_dict` computes it
 * (mr_visualize/eval_res_view/draw_figure/draw_radar.ipynb): 0.5 · F1 + 0.5 · negative F1, the
 * paper's weights, except for the class `multi_solutions`, which has no error step and is scored
 * by its F1 alone (the same function in draw_tabs/form_latex_strs.ipynb also clamps a negative
 * PRMScore to 0 for its tables; the score here keeps the value, so an undefined -1 stays visible):
 *
 * - per item, step by step over the prediction's labels (steps beyond them are not counted;
 *   labels beyond the steps count as correct steps): a correct step judged correct is a TP,
 *   judged wrong an FN; an error step judged correct an FP, judged wrong a TN;
 * - totals over the modified items only; the all-correct items (`correct_<idx>`) count in
 *   their own class alone;
 * - every ratio whose denominator is 0 is -1, and F1 is computed from those values as they
 *   are (so an undefined precision or recall yields the number the evaluator prints).
 */

export interface ConfusionCounts {
  TP: number;
  FP: number;
  TN: number;
  FN: number;
}

/** The evaluator's ratio: -1 when the denominator is 0. */
const ratio = (numerator: number, denominator: number) => (denominator !== 0 ? numerator / denominator : -1);
const harmonic = (p: number, r: number) => (p + r !== 0 ? (2 * p * r) / (p + r) : -1);

export interface PrmbenchFigures {
  prmscore: number;
  f1: number;
  negative_f1: number;
  n: number;
}

/**
 * The classes PRMBench's authors score by F1 alone (`if classification in ["multi_solutions"]`
 * in `get_prmscore_from_current_res_dict`): a class without error steps, whose negative F1 measures nothing.
 */
export const PRMBENCH_F1_ONLY_CLASSES: ReadonlySet<string> = new Set(["multi_solutions"]);

/** F1, negative F1 and PRMScore from confusion counts; `classification` names a class's own figures (none: the totals). */
export function figuresOf(counts: ConfusionCounts, n: number, classification?: string): PrmbenchFigures {
  const f1 = harmonic(ratio(counts.TP, counts.TP + counts.FP), ratio(counts.TP, counts.TP + counts.FN));
  const negativeF1 = harmonic(ratio(counts.TN, counts.TN + counts.FN), ratio(counts.TN, counts.TN + counts.FP));
  const prmscore = classification !== undefined && PRMBENCH_F1_ONLY_CLASSES.has(classification) ? f1 : f1 * 0.5 + negativeF1 * 0.5;
  return { prmscore, f1, negative_f1: negativeF1, n };
}

/** One item's confusion counts from its predicted labels (true = the step is correct). */
export function itemConfusion(errorSteps: readonly number[], labels: readonly boolean[]): ConfusionCounts {
  const errors = new Set(errorSteps.map((step) => step - 1));
  const counts: ConfusionCounts = { TP: 0, FP: 0, TN: 0, FN: 0 };
  for (let i = 0; i < labels.length; i++) {
    if (errors.has(i)) counts[labels[i] ? "FP" : "TN"] += 1;
    else counts[labels[i] ? "TP" : "FN"] += 1;
  }
  return counts;
}

const add = (into: ConfusionCounts, counts: ConfusionCounts) => {
  into.TP += counts.TP;
  into.FP += counts.FP;
  into.TN += counts.TN;
  into.FN += counts.FN;
};
const zero = (): ConfusionCounts => ({ TP: 0, FP: 0, TN: 0, FN: 0 });

export interface PrmbenchScore extends PrmbenchFigures {
  by_class: Record<string, PrmbenchFigures>;
}

export interface PrmbenchScoring {
  score: PrmbenchScore;
  counts: { total: ConfusionCounts; byClass: Record<string, ConfusionCounts> };
  /** Items without a prediction: left out. */
  missing: string[];
  /** Prediction ids that name no item, and ids predicted again (the first prediction counts): ignored. */
  unknown: string[];
  repeated: string[];
}

/**
 * Scores step-level predictions on PRMBench items exactly as the official evaluator does.
 * `predictions` are in file order; `by_class` has every class of the items (the all-correct
 * one included), in alphabetical order.
 */
export function scorePrmbench(items: readonly PrmbenchItem[], predictions: Iterable<{ id: string; labels: readonly boolean[] }>): PrmbenchScoring {
  const byId = new Map(items.map((item) => [item.id, item]));
  const predicted = new Map<string, readonly boolean[]>();
  const unknown: string[] = [];
  const repeated: string[] = [];
  for (const prediction of predictions) {
    if (!byId.has(prediction.id)) unknown.push(prediction.id);
    else if (predicted.has(prediction.id)) repeated.push(prediction.id);
    else predicted.set(prediction.id, prediction.labels);
  }
  const total = zero();
  let totalItems = 0;
  const classes = [...new Set(items.map((item) => item.classification))].sort();
  const byClass: Record<string, ConfusionCounts> = Object.fromEntries(classes.map((c) => [c, zero()]));
  const classItems: Record<string, number> = Object.fromEntries(classes.map((c) => [c, 0]));
  const missing: string[] = [];
  for (const item of items) {
    const labels = predicted.get(item.id);
    if (!labels) {
      missing.push(item.id);
      continue;
    }
    const counts = itemConfusion(item.errorSteps, labels);
    add(byClass[item.classification]!, counts);
    classItems[item.classification]! += 1;
    if (item.classification === PRMBENCH_CORRECT_CLASS) continue;
    add(total, counts);
    totalItems += 1;
  }
  return {
    score: { ...figuresOf(total, totalItems), by_class: Object.fromEntries(classes.map((c) => [c, figuresOf(byClass[c]!, classItems[c]!, c)])) },
    counts: { total, byClass },
    missing,
    unknown,
    repeated,
  };
}

const FIGURES = ["prmscore", "f1", "negative_f1"] as const;
export type PrmbenchFigureName = (typeof FIGURES)[number];
export type PrmbenchIntervals = Record<PrmbenchFigureName, { lower: number; upper: number }>;

function figuresOfCounts(counts: readonly ConfusionCounts[], classification?: string): Record<PrmbenchFigureName, number> {
  const total = zero();
  for (const c of counts) add(total, c);
  return figuresOf(total, counts.length, classification);
}

/**
 * 95 % percentile-bootstrap intervals of PRMScore, F1 and negative F1 over items: the totals
 * resample the scored modified items, each class its own scored items (the evaluator's
 * counts summed over the resampled items, its -1 conventions included).
 */
export function prmbenchIntervals(
  items: readonly PrmbenchItem[],
  predictions: Iterable<{ id: string; labels: readonly boolean[] }>,
  options: BootstrapOptions,
): { total: PrmbenchIntervals | null; by_class: Record<string, PrmbenchIntervals> } {
  const predicted = new Map<string, readonly boolean[]>();
  for (const p of predictions) if (!predicted.has(p.id)) predicted.set(p.id, p.labels);
  const scored = items.flatMap((item) => {
    const labels = predicted.get(item.id);
    return labels ? [{ classification: item.classification, counts: itemConfusion(item.errorSteps, labels) }] : [];
  });
  const intervalsOf = (group: typeof scored, classification?: string): PrmbenchIntervals | null => {
    if (group.length === 0) return null;
    const ci = bootstrapIntervals(group, (sample) => figuresOfCounts(sample.map((s) => s.counts), classification), FIGURES, options);
    return Object.fromEntries(FIGURES.map((name) => [name, { lower: ci[name].lower, upper: ci[name].upper }])) as PrmbenchIntervals;
  };
  const byClass: Record<string, PrmbenchIntervals> = {};
  for (const classification of [...new Set(items.map((i) => i.classification))].sort()) {
    const interval = intervalsOf(scored.filter((s) => s.classification === classification), classification);
    if (interval) byClass[classification] = interval;
  }
  return { total: intervalsOf(scored.filter((s) => s.classification !== PRMBENCH_CORRECT_CLASS)), by_class: byClass };
}
