import { PAPER_PRESET_IDS, PAPER_PRESETS, paperPresetLabelRules, type PaperPresetId } from "@stepwiser/core";

/** The run kinds a paper preset applies to: the label rules of an annotate run. */
export function hasPresets(kind: string): boolean {
  return kind === "annotate";
}

/** The preset select's options: none, then each preset with its settings. */
export function presetOptions(): [string, string][] {
  return [["", "— (the rules below)"], ...PAPER_PRESET_IDS.map((id): [string, string] => [id, PAPER_PRESETS[id].label])];
}

/** The labelRules field's value a preset sets: the same rules `stepwiser run annotate --preset` writes. */
export function presetLabelRulesValue(id: PaperPresetId): string {
  return JSON.stringify(paperPresetLabelRules(id), null, 2);
}
