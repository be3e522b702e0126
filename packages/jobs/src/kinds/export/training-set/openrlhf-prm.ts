import { concatBytes } from "./rows";
import { LabelledSolution, solutionExtraInfo, type PrmExtraInfo, type SolutionRowContext } from "./trl-prm";

/**
 * OpenRLHF's process reward layout (`ProcessRewardDataset`, openrlhf/datasets/process_reward_dataset.py at
 * v0.9.5, read by `openrlhf.cli.train_prm`): one JSON object per solution whose `input` (its `--input_key`,
 * default "input") is the text the model reads, tokenized as it is (no chat template, no special tokens), and
 * whose `label` (`--label_key`, default "label") is a list with one entry per step. The dataset marks the
 * steps by a placeholder token: every position where the tokenized input equals the id of
 * `--placeholder_token` gets the next label, converted to its token id (each string label must be one of
 * `--reward_tokens` and encode to a single token), so the input must hold exactly one placeholder per label.
 * PRMLoss then trains the logits at each placeholder to predict the step's reward token.
 */

/** The placeholder after each step: OpenRLHF's own example (examples/scripts/train_prm_mistral.sh) uses it. */
export const OPENRLHF_PRM_PLACEHOLDER = "ки";
/** The reward tokens, Positive first (the release prints that order for soft labels): the example's `+` and `-`. */
export const OPENRLHF_PRM_REWARD_TOKENS = ["+", "-"] as const;
/** The JSON keys the rows use: train_prm's defaults for --input_key and --label_key. */
export const OPENRLHF_PRM_KEYS = { input: "input", label: "label" } as const;

/**
 * The text the model reads: the problem, then each step followed by the placeholder, one per line.
 * The placeholder stands on a line of its own so that a byte-level BPE tokenizer (Qwen, Llama 3) gives it
 * the same token inside the text as alone, the id train_prm looks for.
 */
export function openrlhfPrmInput(problem: string, steps: readonly string[]): string {
  return [problem, ...steps.flatMap((step) => [step, OPENRLHF_PRM_PLACEHOLDER])].join("\n");
}

/** Whether a text already holds the placeholder (such a solution would get more placeholders than labels). */
export function holdsPlaceholder(text: string): boolean {
  return text.includes(OPENRLHF_PRM_PLACEHOLDER);
}

/** A solution as train_prm reads it: `prompt` (what the length filter measures) is the row's `input`. */
export class OpenrlhfPrmSolution extends LabelledSolution {
  override get prompt(): string {
    return openrlhfPrmInput(this.problem, this.completions);
  }
}

export interface OpenrlhfPrmRow {
  input: string;
  label: string[];
  extra_info: PrmExtraInfo;
}

export function openrlhfPrmRow(solution: OpenrlhfPrmSolution, index: number, context: SolutionRowContext): OpenrlhfPrmRow {
  const [positive, negative] = OPENRLHF_PRM_REWARD_TOKENS;
  return {
    input: solution.prompt,
    label: solution.steps.map((step) => (step.label === "Positive" ? positive : negative)),
    extra_info: solutionExtraInfo(solution, index, context),
  };
}

/** The keys as documented in the manifest. */
export const OPENRLHF_PRM_LAYOUT: Array<{ key: string; type: string; description: string }> = [
  {
    key: OPENRLHF_PRM_KEYS.input,
    type: "string",
    description: `the problem, then each chunk followed by the placeholder "${OPENRLHF_PRM_PLACEHOLDER}", one per line: one placeholder per label`,
  },
  { key: OPENRLHF_PRM_KEYS.label, type: "array of string", description: `one per chunk, in order: "${OPENRLHF_PRM_REWARD_TOKENS[0]}" when its label is Positive, "${OPENRLHF_PRM_REWARD_TOKENS[1]}" when Negative` },
  { key: "extra_info", type: "object", description: "split, index, solution_id, external_id, segmentation_id, problem_id, dataset_id, run_id, rule, params: where the row comes from (train_prm reads only input and label)" },
];

/** Rows `0..rowCount-1` as JSON lines, a thousand at a time. */
export function writeOpenrlhfPrmJsonl(rowCount: number, rowAt: (index: number) => OpenrlhfPrmRow): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (let start = 0; start < rowCount; start += 1000) {
    let text = "";
    for (let i = start; i < Math.min(rowCount, start + 1000); i++) text += `${JSON.stringify(rowAt(i))}\n`;
    parts.push(encoder.encode(text));
  }
  return concatBytes(parts);
}
