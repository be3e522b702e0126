import type { JudgeProtocolId } from "../judge/protocols/registry";

/*
 * PRMBench's classes as its paper and tables name them, and PRMScores published by its
 * authors: not measured by the studio.
 *
 * Where the names come from (github.com/ssmisya/PRMBench, commit a1ae4ea):
 * - the class in the data → its abbreviation and its dimension: `classification_name_dict`
 *   and `classification_parallel_dict` in mr_visualize/eval_res_view/draw_figure/draw_radar.ipynb
 *   (the same dicts in mr_visualize/eval_res_view/draw_tabs/form_latex_strs.ipynb), e.g.
 *   `simplicity=dict(redundency="NR.", circular="NCL.")`;
 * - the abbreviation → its full name: the class boxes of the paper's overview figure,
 *   docs/assets/main_fig.svg ("Non-Redundancy", "Non-Circular Logic", "Empirical Soundness",
 *   "Step Consistency", "Domain Consistency", "Confidence Invariance", "Prerequisite
 *   Sensitivity", "Deception Resistance", "Multi-Solution Consistency").
 * The class names are the data's own, misspellings included (`redundency`); the prompts that
 * made each class are mr_annotate/build_data/prompts/classifications/<class>.py.
 */

export const PRMBENCH_DIMENSIONS = Object.freeze({ simplicity: "Simplicity", soundness: "Soundness", sensitivity: "Sensitivity" } as const);
export type PrmbenchDimension = keyof typeof PRMBENCH_DIMENSIONS;

export interface PrmbenchClass {
  /** The column heading of PRMBench's tables ("NR."). */
  abbreviation: string;
  /** The paper's name of the class. */
  name: string;
  dimension: PrmbenchDimension;
}

const CLASSES = {
  redundency: { abbreviation: "NR.", name: "Non-Redundancy", dimension: "simplicity" },
  circular: { abbreviation: "NCL.", name: "Non-Circular Logic", dimension: "simplicity" },
  counterfactual: { abbreviation: "ES.", name: "Empirical Soundness", dimension: "soundness" },
  step_contradiction: { abbreviation: "SC.", name: "Step Consistency", dimension: "soundness" },
  domain_inconsistency: { abbreviation: "DC.", name: "Domain Consistency", dimension: "soundness" },
  confidence: { abbreviation: "CI.", name: "Confidence Invariance", dimension: "soundness" },
  missing_condition: { abbreviation: "PS.", name: "Prerequisite Sensitivity", dimension: "sensitivity" },
  deception: { abbreviation: "DR.", name: "Deception Resistance", dimension: "sensitivity" },
  multi_solutions: { abbreviation: "MS.", name: "Multi-Solution Consistency", dimension: "sensitivity" },
} as const satisfies Record<string, PrmbenchClass>;
export type PrmbenchClassName = keyof typeof CLASSES;

/** The nine evaluated classes, in the column order of PRMBench's tables (simplicity, soundness, sensitivity). */
export const PRMBENCH_CLASSES: Readonly<Record<PrmbenchClassName, Readonly<PrmbenchClass>>> = Object.freeze(
  Object.fromEntries(Object.entries(CLASSES).map(([name, c]) => [name, Object.freeze({ ...c })])) as Record<PrmbenchClassName, PrmbenchClass>,
);

/** The classes in table order. */
export const PRMBENCH_CLASS_ORDER: readonly PrmbenchClassName[] = Object.freeze(Object.keys(CLASSES) as PrmbenchClassName[]);

/** A class of the data with its paper name, or null for one PRMBench's tables do not have (the all-correct `correct` is not one of them). */
export function prmbenchClass(classification: string): Readonly<PrmbenchClass> | null {
  return Object.hasOwn(PRMBENCH_CLASSES, classification) ? PRMBENCH_CLASSES[classification as PrmbenchClassName] : null;
}


/** The tables the published figures come from. */
export const PUBLISHED_PRMBENCH_SOURCES = Object.freeze({
  authors: "PRMBench results table (Song et al., arXiv 2501.03124)",
} as const);
export type PublishedPrmbenchSource = (typeof PUBLISHED_PRMBENCH_SOURCES)[keyof typeof PUBLISHED_PRMBENCH_SOURCES];

/** Where exactly each table was read. */
export const PUBLISHED_PRMBENCH_SOURCE_DETAILS: Readonly<Record<PublishedPrmbenchSource, string>> = Object.freeze({
  [PUBLISHED_PRMBENCH_SOURCES.authors]:
    "its LaTeX rows as the authors' notebook mr_visualize/eval_res_view/draw_tabs/form_latex_strs.ipynb prints them (github.com/ssmisya/PRMBench, commit a1ae4ea); not checked against the paper's PDF",
});

/** A PRMScore per evaluated class, in percent as printed (the MS. column is that class's F1, as the source scores it). */
export type PublishedClassScores = Readonly<Record<PrmbenchClassName, number>>;

export interface PublishedPrmbenchScore {
  /** The model as the source names it. */
  model: string;
  /** The source's overall PRMScore (0.5 · F1 + 0.5 · negative F1 over every modified item's steps), in percent. */
  prmscore: number;
  /** Per class, as printed. */
  byClass: PublishedClassScores;
  /** The source's average per dimension, as printed (not recomputed here). */
  byDimension: Readonly<Record<PrmbenchDimension, number>>;
  /** The studio protocol of the same family, or null when the studio speaks none of its kind. */
  protocol: JudgeProtocolId | null;
  /** The kind of judge, in words (the panel of the source's table). */
  family: string;
  source: PublishedPrmbenchSource;
  note?: string;
}

const AUTHORS = PUBLISHED_PRMBENCH_SOURCES.authors;
const PRM = "Open-source process-level reward model";
const OPEN_CRITIC = "Open LLM prompted as a critic model";
const PROPRIETARY_CRITIC = "Proprietary LLM prompted as a critic model";
const DAGGER = "Marked † in the source table (its footnote is not part of the source read here).";

/**
 * One row as the source prints it: overall, NR., NCL., simplicity average, ES., SC., DC., CI.,
 * soundness average, PS., DR., MS., sensitivity average.
 */
function row(
  model: string,
  [overall, nr, ncl, simplicity, es, sc, dc, ci, soundness, ps, dr, ms, sensitivity]: readonly [number, number, number, number, number, number, number, number, number, number, number, number, number],
  rest: Pick<PublishedPrmbenchScore, "protocol" | "family"> & { note?: string },
): PublishedPrmbenchScore {
  return Object.freeze({
    model,
    prmscore: overall,
    byClass: Object.freeze({ redundency: nr, circular: ncl, counterfactual: es, step_contradiction: sc, domain_inconsistency: dc, confidence: ci, missing_condition: ps, deception: dr, multi_solutions: ms }),
    byDimension: Object.freeze({ simplicity, soundness, sensitivity }),
    source: AUTHORS,
    ...rest,
  });
}

const prm = { protocol: "discriminative-prm", family: PRM } as const;
// PRMBench prompts a critic for a validity score per step in its own JSON format (mr_eval/utils/prompts.py): no studio protocol asks that way.
const openCritic = { protocol: null, family: OPEN_CRITIC } as const;
const proprietaryCritic = { protocol: null, family: PROPRIETARY_CRITIC } as const;

/**
 * The published PRMScores, in the source's order (its three panels: PRMs, open LLMs as
 * critics, proprietary LLMs as critics), every figure copied as printed (percent, one
 * decimal): the 25 models the paper's abstract counts. The stored copy of the paper's own
 * text could not be read past its opening, so the figures are those its authors' notebook
 * prints as the LaTeX rows of the table (the first cell's output of form_latex_strs.ipynb);
 * the same notebook's HTML output, the project page's leaderboard, prints the same figures for
 * all 25, while its Markdown output is another, older state (Skywork-PRM-1.5B at 31.7) and is
 * not used. Not checked against the PDF. The panels' averages are left out.
 */
export const PUBLISHED_PRMBENCH_PRMSCORE: readonly PublishedPrmbenchScore[] = Object.freeze([
  row("Skywork-PRM-1.5B", [61.1, 52.0, 56.4, 54.2, 64.8, 64.9, 63.3, 66.5, 64.9, 57.5, 63.3, 91.1, 70.7], prm),
  row("Skywork-PRM-7B", [65.1, 56.4, 62.8, 59.6, 69.4, 67.1, 67.7, 69.9, 68.5, 60.9, 65.8, 93.2, 73.3], prm),
  row("Llemma-PRM800k-7B", [52.0, 49.3, 53.4, 51.4, 56.4, 47.1, 46.7, 53.3, 50.9, 51.0, 53.5, 93.6, 66.0], prm),
  row("Llemma-MetaMath-7B", [50.5, 50.2, 50.5, 50.3, 51.9, 47.6, 44.4, 52.1, 49.0, 50.5, 51.3, 96.0, 66.0], prm),
  row("Llemma-oprm-7B", [50.3, 48.7, 49.3, 49.0, 54.2, 46.8, 44.5, 53.5, 49.8, 49.2, 51.3, 91.8, 64.1], prm),
  row("MATHMinos-Mistral-7B", [54.2, 48.8, 54.0, 51.4, 57.0, 52.1, 50.7, 57.8, 54.4, 52.8, 55.8, 91.1, 66.5], prm),
  row("MathShepherd-Mistral-7B", [47.0, 44.0, 50.3, 47.1, 49.4, 44.5, 41.3, 47.7, 45.7, 47.2, 48.6, 86.1, 60.7], prm),
  row("ReasonEval-7B", [60.1, 61.0, 50.1, 55.6, 62.1, 65.9, 61.5, 66.0, 63.9, 55.7, 58.0, 99.5, 71.1], prm),
  row("ReasonEval-34B", [60.5, 54.8, 48.1, 51.5, 66.4, 60.3, 57.8, 67.5, 63.0, 57.7, 64.3, 97.2, 73.1], prm),
  row("RLHFlow-PRM-Mistral-8B", [54.4, 46.1, 47.3, 46.7, 56.6, 55.1, 54.4, 63.8, 57.5, 51.5, 56.2, 97.9, 68.5], prm),
  row("RLHFlow-PRM-Deepseek-8B", [54.2, 46.4, 48.9, 47.6, 55.7, 55.0, 53.2, 66.2, 57.5, 49.0, 55.4, 99.8, 68.1], prm),
  row("Qwen2.5-Math-PRM-7B", [65.5, 49.0, 55.1, 52.1, 71.8, 67.3, 66.3, 78.5, 71.0, 57.6, 69.1, 99.7, 75.5], prm),
  row("Qwen2.5-Math-PRM-72B", [68.2, 50.4, 58.8, 54.6, 73.7, 71.1, 72.2, 78.6, 73.9, 60.3, 71.2, 99.4, 77.0], prm),
  row("Pure-PRM-7B", [65.3, 49.2, 55.2, 52.2, 71.1, 68.8, 64.0, 76.9, 70.2, 60.3, 69.2, 98.0, 75.8], prm),
  row("MetaMath-7B", [49.7, 48.9, 46.9, 47.9, 47.3, 48.9, 48.4, 48.8, 48.3, 46.5, 48.3, 98.0, 64.2], openCritic),
  row("MetaMath-13B", [49.4, 50.3, 44.4, 47.3, 47.8, 47.4, 49.4, 48.1, 48.2, 49.0, 48.1, 99.5, 65.5], openCritic),
  row("Qwen2.5-Math-72B", [57.4, 55.3, 54.9, 55.1, 55.5, 71.6, 58.1, 59.1, 61.1, 47.4, 53.8, 100.0, 67.1], {
    ...openCritic,
    note: "As named in the source's critic panel (its link points at the Qwen2.5-Math-PRM-72B model page).",
  }),
  row("QwQ-Preview-32B", [63.6, 57.2, 55.6, 56.4, 67.4, 72.3, 66.2, 66.9, 68.2, 57.8, 62.7, 100.0, 73.5], openCritic),
  row("R1-Distill-Llama3.1-70B", [57.5, 49.5, 48.1, 48.8, 61.4, 65.5, 65.8, 61.1, 63.4, 48.8, 54.1, 100.0, 67.6], openCritic),
  row("R1-Distill-Qwen-7B", [52.6, 32.9, 37.9, 35.4, 47.3, 54.1, 48.4, 48.0, 49.4, 45.6, 46.8, 100.0, 64.1], openCritic),
  row("DeepSeek-R1", [67.8, 63.0, 62.7, 62.9, 68.2, 68.5, 73.5, 75.4, 71.4, 63.3, 68.0, 100.0, 77.1], { ...openCritic, note: DAGGER }),
  row("GPT-4o", [66.8, 57.0, 62.4, 59.7, 72.0, 69.7, 70.7, 71.1, 70.9, 62.5, 65.7, 99.2, 75.8], proprietaryCritic),
  row("o1-mini", [68.8, 65.6, 63.7, 64.6, 74.5, 67.7, 73.8, 72.3, 72.1, 61.8, 64.8, 100.0, 75.5], { ...proprietaryCritic, note: DAGGER }),
  row("Gemini-2.0-flash-exp", [66.0, 67.2, 58.1, 62.7, 70.4, 65.7, 66.0, 67.3, 67.3, 61.8, 66.2, 98.2, 75.4], proprietaryCritic),
  row("Gemini-2.0-thinking-exp-1219", [68.8, 68.5, 63.8, 66.2, 72.9, 71.3, 71.0, 71.8, 71.8, 60.3, 65.7, 99.8, 75.3], proprietaryCritic),
]);
