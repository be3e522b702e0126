import { DEFAULT_LABEL_RULES, type LabelRule } from "./rules";

/**
 * The paper's label settings per policy size (StepWiser §4.1 and Table 5): Rel-Ratio's γ and
 * Rel-Effective's α tuned on the grids {0.6, 0.7, 0.8, 1.0, 1.2} and {0.2, 0.4, 0.6, 0.8, 1.0};
 * Abs-Q and Rel-Effective's best-of-n prover (n = 4) are the same for both.
 */
export const PAPER_PRESETS = Object.freeze({
  "paper-1.5b": { label: "Paper, 1.5B policy (γ 0.8, α 0.4)", gamma: 0.8, alpha: 0.4 },
  "paper-7b": { label: "Paper, 7B policy (γ 0.7, α 0.8)", gamma: 0.7, alpha: 0.8 },
} as const);
export type PaperPresetId = keyof typeof PAPER_PRESETS;
export const PAPER_PRESET_IDS = Object.freeze(Object.keys(PAPER_PRESETS) as PaperPresetId[]);

export function isPaperPresetId(id: string): id is PaperPresetId {
  return Object.hasOwn(PAPER_PRESETS, id);
}

/** The label rules of a preset: Abs-Q, Rel-Ratio(γ) and Rel-Effective(α, n = 4), in that order. */
export function paperPresetLabelRules(id: PaperPresetId): LabelRule[] {
  const preset = PAPER_PRESETS[id];
  return [
    { ...DEFAULT_LABEL_RULES["abs-q"] },
    { rule: "rel-ratio", gamma: preset.gamma },
    { rule: "rel-effective", alpha: preset.alpha, n: DEFAULT_LABEL_RULES["rel-effective"].n },
  ];
}
