import { PAPER_PRESET_IDS, PAPER_PRESETS, paperPresetLabelRules, type PaperPresetId } from "@stepwiser/core";
import { rowsFromRules, type LabelRuleRow } from "./label-editors";

/** The run kinds a paper preset applies to: the label rules of an annotate run. */
export function hasPresets(kind: string): boolean {
  return kind === "annotate";
}

/** The one-click preset buttons: each preset (`--preset paper-1.5b|paper-7b`) with its settings. */
export function presetButtons(): Array<{ id: PaperPresetId; label: string }> {
  return PAPER_PRESET_IDS.map((id) => ({ id, label: PAPER_PRESETS[id].label }));
}

/** The label rule rows a preset fills in: the same rules `stepwiser run annotate --preset` writes. */
export function presetRuleRows(id: PaperPresetId): LabelRuleRow[] {
  return rowsFromRules(paperPresetLabelRules(id));
}
