import { createHash } from "node:crypto";
import { labelRuleKey, labelRuleParamsKey, STEPWISER_JUDGE_PROMPT, type LabelRule } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { JSONL_KEYS, writeJsonl } from "./jsonl";
import { assertConfidencesStored, countRunLabels, readLabelledChunks, type LabelledChunk } from "./labelled-chunks";
import { parseTrainingSetExportOptions, type TrainingSetExportInput, type TrainingSetFormat } from "./options";
import { OPENRLHF_REWARD_PY, TRL_REWARD_PY, VERL_REWARD_PY } from "./reward-scripts";
import { trainingRow, type RowContext } from "./rows";
import { exportSeeds, selectSplits, SPLITS, type SplitName, type SplitSampleReport } from "./split";
import { VERL_COLUMNS, writeVerlParquet } from "./verl-parquet";

export interface ExportedFile {
  fileName: string;
  contentType: string;
  content: Uint8Array;
}

export interface TrainingSetSplitReport extends SplitSampleReport {
  /** Problems assigned to the split (before any filter). */
  problems: number;
  /** Rows written: after.positive + after.negative. */
  rows: number;
  fileName: string;
}

/** Everything needed to know what a training set holds and to rebuild it; written as manifest.json. */
export interface TrainingSetReport {
  format: TrainingSetFormat;
  annotateRunId: string;
  labelRule: LabelRule;
  /** e.g. "rel-ratio(gamma=0.7)". */
  labelRuleKey: string;
  /** Canonical JSON of the rule's parameters, as in extra_info.params. */
  params: string;
  promptTemplate: string;
  dataSource: string;
  seed: number;
  /** The seeds actually drawn from, derived from `seed`. */
  seeds: { problems: string; train: string; test: string };
  heldOutFraction: number;
  filters: { minPromptChars: number | null; maxPromptChars: number | null; measure: string; minConfidence: number | null };
  labelledChunks: number;
  problems: number;
  datasetIds: string[];
  splits: Record<SplitName, TrainingSetSplitReport>;
  files: Array<{ fileName: string; contentType: string; bytes: number; sha256: string }>;
  layout: { columns?: typeof VERL_COLUMNS; keys?: typeof JSONL_KEYS };
  usage: string[];
  procedure: string[];
}

const CONTENT_TYPES = {
  parquet: "application/vnd.apache.parquet",
  jsonl: "application/x-ndjson",
  python: "text/x-python",
  json: "application/json",
} as const;

const PROCEDURE = [
  "Every chunk the run labelled under the rule becomes one prompt: the StepWiser judge prompt (problem, the chunks before it, the chunk) as one user message.",
  "Problems are shuffled (sorted ids, seed `<seed>:problems`) and round(heldOutFraction × problems) of them are held out for test (at least 1 when the fraction is positive and there are 2 problems or more); all chunks of a problem go to one split.",
  "In each split, labels whose confidence is below minConfidence (or that have none) are dropped when minConfidence is set; then prompts whose user message is shorter than minPromptChars or longer than maxPromptChars (Unicode code points, bounds inclusive).",
  "Each split is then balanced 50/50: every remaining chunk of the minority class is kept and as many of the majority class are drawn without replacement (seed `<seed>:train` or `<seed>:test`), and the union is shuffled with the same stream. A split where one class has no chunk left is written empty.",
];

function usageFor(format: TrainingSetFormat, maxPromptChars: number | undefined): string[] {
  switch (format) {
    case "verl":
      return [
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=train.parquet data.val_files=test.parquet data.prompt_key=prompt" +
          " custom_reward_function.path=reward.py custom_reward_function.name=compute_score actor_rollout_ref.rollout.n=4" +
          " actor_rollout_ref.actor.clip_ratio_low=0.2 actor_rollout_ref.actor.clip_ratio_high=0.28" +
          (maxPromptChars !== undefined ? ` data.max_prompt_length=<tokens of a ${maxPromptChars}-character prompt plus the chat template>` : ""),
      ];
    case "openrlhf":
      return [
        "python3 -m openrlhf.cli.train_ppo_ray --data.prompt_dataset train.jsonl --eval.dataset test.jsonl --data.input_key prompt --data.label_key label --data.apply_chat_template" +
          " --reward.remote_url reward_func.py --algo.advantage.estimator group_norm --rollout.n_samples_per_prompt 4 --actor.eps_clip_low_high 0.2 0.28",
        "releases before the dotted options: --prompt_data train.jsonl --eval_dataset test.jsonl --input_key prompt --label_key label --apply_chat_template --remote_rm_url reward_func.py" +
          " --advantage_estimator group_norm --n_samples_per_prompt 4 (and RETURN_TENSOR_ONLY = True in reward_func.py for releases that expect a tensor)",
      ];
    case "trl":
      return [
        'data = datasets.load_dataset("json", data_files={"train": "train.jsonl", "test": "test.jsonl"})',
        "from reward_func import verdict_reward",
        'GRPOTrainer(model=..., reward_funcs=[verdict_reward], args=GRPOConfig(num_generations=4, epsilon=0.2, epsilon_high=0.28), train_dataset=data["train"], eval_dataset=data["test"])',
      ];
  }
}

function file(fileName: string, contentType: string, content: Uint8Array | string): ExportedFile {
  return { fileName, contentType, content: typeof content === "string" ? new TextEncoder().encode(content) : content };
}

/**
 * Exports the chunks an annotate run labelled as a judge training set for
 * verl (Parquet), OpenRLHF or TRL (JSONL), with the matching reward function
 * and a manifest. Split by problem, length-filtered and balanced 50/50 per
 * split (spec §3); the same run, options and seed give byte-identical files.
 */
export async function exportTrainingSet(
  db: Db,
  input: TrainingSetExportInput,
  onProgress?: (done: number, total: number) => void,
): Promise<{ files: ExportedFile[]; report: TrainingSetReport }> {
  const options = parseTrainingSetExportOptions(input);
  const { annotateRunId: runId, labelRule, format } = options;
  const total = await countRunLabels(db, runId, labelRule);
  await assertConfidencesStored(db, runId, labelRule, options.minConfidence);
  onProgress?.(0, total);
  let done = 0;
  const chunks = await readLabelledChunks(db, runId, labelRule, (read) => {
    done += read;
    onProgress?.(done, total);
  });

  const selection = selectSplits(chunks, options);
  const params = labelRuleParamsKey(labelRule);
  const fileNames = format === "verl" ? { train: "train.parquet", test: "test.parquet" } : { train: "train.jsonl", test: "test.jsonl" };
  const files: ExportedFile[] = [];
  for (const split of SPLITS) {
    const items: LabelledChunk[] = selection[split].items;
    const context: RowContext = { split, runId, rule: labelRule.rule, params };
    const rowAt = (index: number) => trainingRow(items[index]!, index, context);
    files.push(
      format === "verl"
        ? file(fileNames[split], CONTENT_TYPES.parquet, await writeVerlParquet(items.length, rowAt, options.dataSource))
        : file(fileNames[split], CONTENT_TYPES.jsonl, writeJsonl(items.length, rowAt)),
    );
  }
  files.push(
    format === "verl"
      ? file("reward.py", CONTENT_TYPES.python, VERL_REWARD_PY)
      : file("reward_func.py", CONTENT_TYPES.python, format === "openrlhf" ? OPENRLHF_REWARD_PY : TRL_REWARD_PY),
  );

  const splitReport = (split: SplitName): TrainingSetSplitReport => ({
    problems: selection[split].problems,
    rows: selection[split].items.length,
    fileName: fileNames[split],
    ...selection[split].report,
  });
  const report: TrainingSetReport = {
    format,
    annotateRunId: runId,
    labelRule,
    labelRuleKey: labelRuleKey(labelRule),
    params,
    promptTemplate: STEPWISER_JUDGE_PROMPT.id,
    dataSource: options.dataSource,
    seed: options.seed,
    seeds: exportSeeds(options.seed),
    heldOutFraction: options.heldOutFraction,
    filters: {
      minPromptChars: options.minPromptChars ?? null,
      maxPromptChars: options.maxPromptChars ?? null,
      measure: "Unicode code points of the rendered user message",
      minConfidence: options.minConfidence ?? null,
    },
    labelledChunks: chunks.length,
    problems: selection.train.problems + selection.test.problems,
    datasetIds: [...new Set(chunks.map((chunk) => chunk.datasetId))].sort(),
    splits: { train: splitReport("train"), test: splitReport("test") },
    files: files.map((f) => ({ fileName: f.fileName, contentType: f.contentType, bytes: f.content.length, sha256: createHash("sha256").update(f.content).digest("hex") })),
    layout: format === "verl" ? { columns: VERL_COLUMNS } : { keys: JSONL_KEYS },
    usage: usageFor(format, options.maxPromptChars),
    procedure: PROCEDURE,
  };
  files.push(file("manifest.json", CONTENT_TYPES.json, `${JSON.stringify(report, null, 2)}\n`));
  return { files, report };
}
