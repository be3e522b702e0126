import { concatBytes, EXTRA_INFO_FIELDS, type TrainingRow } from "./rows";

/**
 * One JSON object per line: `prompt` (chat messages, for `apply_chat_template`),
 * `label` (the ground truth the reward function receives) and `extra_info`.
 * OpenRLHF reads `--input_key prompt --label_key label`; TRL's GRPOTrainer takes
 * `prompt` as a conversational prompt and passes `label` (and `extra_info`) to
 * reward functions as keyword arguments.
 */
export const JSONL_KEYS: Array<{ key: string; type: string; description: string }> = [
  { key: "prompt", type: "array of {role, content}", description: "chat messages: one user message holding the StepWiser judge prompt" },
  { key: "label", type: "string", description: 'the chunk label, "Positive" or "Negative"' },
  { key: "extra_info", type: "object", description: Object.entries(EXTRA_INFO_FIELDS).map(([key, text]) => `${key}: ${text}`).join("; ") },
];

const LINES_PER_PART = 1000;

/** Lines are encoded a thousand at a time, so the whole file never exists as one JavaScript string as well as bytes. */
export function writeJsonl(rowCount: number, rowAt: (index: number) => TrainingRow): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (let start = 0; start < rowCount; start += LINES_PER_PART) {
    let text = "";
    for (let i = start; i < Math.min(rowCount, start + LINES_PER_PART); i++) {
      const row = rowAt(i);
      text += `${JSON.stringify({ prompt: row.prompt, label: row.label, extra_info: row.extra_info })}\n`;
    }
    parts.push(encoder.encode(text));
  }
  return concatBytes(parts);
}
