import type { TrainingSetFormat } from "./options";

/**
 * How to start training on an exported set: the command (or script) the manifest
 * and docs/EXPORTS.md give, with the batch sizes chosen from the split sizes so
 * that the trainer's own checks pass. The trainers' rules, as their sources state
 * them (versions in docs/EXPORTS.md):
 *
 * - verl (`main_ppo`): the train dataloader has `data.train_batch_size` prompts per
 *   batch (default 1024) with drop_last, and asserts it is not empty; the validation
 *   dataloader takes the whole `data.val_files` set as one batch and asserts it is
 *   not empty either, whether or not validation ever runs. `actor.ppo_mini_batch_size`
 *   (default 256) must not exceed the train batch; `train_batch_size × rollout.n`
 *   must divide by the GPU count; the mini-batch times rollout.n over the GPU count
 *   must divide by `ppo_micro_batch_size_per_gpu`, which (like
 *   `rollout.log_prob_micro_batch_size_per_gpu`) has no default and must be set;
 *   `actor_rollout_ref.rollout.name` is `???` (mandatory).
 * - OpenRLHF (`train_ppo_ray`): `rollout.batch_size` prompts per rollout (default 1024),
 *   `train.batch_size` samples per update (default 128); the number of rollout
 *   samples (prompts × n_samples_per_prompt) must cover the actor's GPUs, and
 *   `--eval.dataset` needs a reward (we give the reward file).
 * - TRL: `GRPOTrainer` passes `label` to the reward function; `examples/scripts/prm.py`
 *   loads `--dataset_name` with `datasets.load_dataset` and always takes
 *   `dataset[--dataset_test_split]` as its evaluation set.
 */

/** GRPO samples per prompt (spec §3: 4), and the clip-higher range. */
export const GRPO_SAMPLES = 4;
const CLIP_LOW = 0.2;
const CLIP_HIGH = 0.28;

/** GPUs the commands ask for: one node of 8, verl's and OpenRLHF's default. */
export const TRAINER_GPUS = 8;
/** verl's default `data.train_batch_size` and `actor.ppo_mini_batch_size`. */
export const VERL_DEFAULT_TRAIN_BATCH = 1024;
export const VERL_DEFAULT_MINI_BATCH = 256;
/** The per-GPU micro-batch the verl command sets for updates and log-prob passes (at most). */
export const VERL_MICRO_BATCH_PER_GPU = 4;
/** OpenRLHF's default `rollout.batch_size` and `train.batch_size`. */
export const OPENRLHF_DEFAULT_ROLLOUT_BATCH = 1024;
export const OPENRLHF_DEFAULT_TRAIN_BATCH = 128;

const MODEL = '"${MODEL:?set MODEL to the base model to train}"';
const MAX_PROMPT_TOKENS = '"${MAX_PROMPT_TOKENS:?set MAX_PROMPT_TOKENS to the longest prompt in tokens, chat template included}"';
const TRL_CHECKOUT = '"${TRL_DIR:?set TRL_DIR to a checkout of github.com/huggingface/trl}"';

export interface LaunchPlan {
  trainer: "verl" | "OpenRLHF" | "TRL";
  /** Shell (verl, OpenRLHF, TRL PRM) or Python (TRL GRPO). */
  language: "shell" | "python";
  /** Run from the export directory; null when the train split cannot fill one batch (`notes` says why). */
  command: string | null;
  /** The values chosen from the split sizes, as the command sets them. */
  settings: Record<string, number | string | boolean>;
  /** "test": the test split validates; "off": the test split is empty and the command runs no validation on it. */
  validation: "test" | "off";
  notes: string[];
}

export interface LaunchInput {
  format: TrainingSetFormat;
  trainRows: number;
  testRows: number;
  /** Tokens a rollout may generate (the export's `maxResponseTokens`). */
  maxResponseTokens: number;
}

/** The largest power of two that is at most both `n` and `cap`; 0 when n < 1. */
export function powerOfTwoAtMost(n: number, cap: number): number {
  const limit = Math.min(n, cap);
  if (limit < 1) return 0;
  let p = 1;
  while (p * 2 <= limit) p *= 2;
  return p;
}

/**
 * The smallest train split a command can run on: verl and OpenRLHF need
 * `prompts × GRPO_SAMPLES` to cover (and divide by) the GPUs, with a power-of-two
 * prompt batch; TRL needs one row.
 */
export function minimumTrainRows(format: TrainingSetFormat): number {
  return format === "verl" || format === "openrlhf" ? TRAINER_GPUS / GRPO_SAMPLES : 1;
}

function join(parts: string[]): string {
  return parts.join(" \\\n  ");
}

function tooSmall(trainer: LaunchPlan["trainer"], language: LaunchPlan["language"], input: LaunchInput, why: string): LaunchPlan {
  return {
    trainer,
    language,
    command: null,
    settings: {},
    validation: input.testRows > 0 ? "test" : "off",
    notes: [`No command: the train split has ${input.trainRows} rows; ${why}.`],
  };
}

function verlPlan(input: LaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < minimumTrainRows("verl")) {
    return tooSmall("verl", "shell", input, `verl on ${TRAINER_GPUS} GPUs needs at least ${minimumTrainRows("verl")} prompts per batch (train_batch_size × rollout.n must divide by the GPU count)`);
  }
  const trainBatch = powerOfTwoAtMost(trainRows, VERL_DEFAULT_TRAIN_BATCH);
  const miniBatch = Math.min(VERL_DEFAULT_MINI_BATCH, trainBatch);
  const micro = Math.min(VERL_MICRO_BATCH_PER_GPU, (miniBatch * GRPO_SAMPLES) / TRAINER_GPUS);
  const validation = testRows > 0 ? "test" : "off";
  const parts = [
    "python3 -m verl.trainer.main_ppo",
    "algorithm.adv_estimator=grpo",
    `data.train_files=train.parquet data.val_files=${validation === "test" ? "test.parquet" : "train.parquet"} data.prompt_key=prompt`,
    `data.train_batch_size=${trainBatch} data.max_prompt_length=${MAX_PROMPT_TOKENS} data.max_response_length=${input.maxResponseTokens}`,
    "custom_reward_function.path=reward.py custom_reward_function.name=compute_score",
    `actor_rollout_ref.model.path=${MODEL}`,
    `actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=${GRPO_SAMPLES}`,
    `actor_rollout_ref.actor.ppo_mini_batch_size=${miniBatch} actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=${micro}`,
    `actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=${micro}`,
    `actor_rollout_ref.actor.clip_ratio_low=${CLIP_LOW} actor_rollout_ref.actor.clip_ratio_high=${CLIP_HIGH}`,
    `trainer.n_gpus_per_node=${TRAINER_GPUS} trainer.nnodes=1`,
    ...(validation === "off" ? ["trainer.val_before_train=False trainer.test_freq=-1"] : []),
  ];
  const notes = [
    `data.train_batch_size=${trainBatch}: the largest power of two at most both the train split (${trainRows} rows) and verl's default ${VERL_DEFAULT_TRAIN_BATCH}, so the train dataloader (drop_last) is never empty; ppo_mini_batch_size=${miniBatch} (verl's default ${VERL_DEFAULT_MINI_BATCH}, or the train batch when smaller) divides it.`,
    `${TRAINER_GPUS} GPUs on one node: train_batch_size × rollout.n = ${trainBatch * GRPO_SAMPLES} divides by ${TRAINER_GPUS}; on other GPU counts keep that true and keep ppo_mini_batch_size × ${GRPO_SAMPLES} / GPUs a multiple of ppo_micro_batch_size_per_gpu.`,
    validation === "test"
      ? `Validation on test.parquet (${testRows} rows), as one batch (data.val_batch_size unset), before training; add trainer.test_freq=<steps> to validate during training too.`
      : "Validation is off: the test split is empty. verl still builds a validation dataloader from data.val_files and fails on an empty one, so it points at train.parquet, and trainer.val_before_train=False trainer.test_freq=-1 keep it from ever running.",
    "Set MAX_PROMPT_TOKENS to cover the longest prompt (longestPromptChars in this manifest gives it in characters): verl's data.truncation defaults to error.",
  ];
  return {
    trainer: "verl",
    language: "shell",
    command: join(parts),
    settings: { trainBatchSize: trainBatch, ppoMiniBatchSize: miniBatch, ppoMicroBatchSizePerGpu: micro, gpus: TRAINER_GPUS, rolloutN: GRPO_SAMPLES, maxResponseTokens: input.maxResponseTokens },
    validation,
    notes,
  };
}

function openrlhfPlan(input: LaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < minimumTrainRows("openrlhf")) {
    return tooSmall("OpenRLHF", "shell", input, `OpenRLHF asserts that prompts × n_samples_per_prompt cover the actor's ${TRAINER_GPUS} GPUs, so it needs at least ${minimumTrainRows("openrlhf")} prompts`);
  }
  const rolloutBatch = powerOfTwoAtMost(trainRows, OPENRLHF_DEFAULT_ROLLOUT_BATCH);
  const trainBatch = Math.min(OPENRLHF_DEFAULT_TRAIN_BATCH, rolloutBatch * GRPO_SAMPLES);
  const validation = testRows > 0 ? "test" : "off";
  const parts = [
    "python3 -m openrlhf.cli.train_ppo_ray",
    `--data.prompt_dataset train.jsonl${validation === "test" ? " --eval.dataset test.jsonl" : ""}`,
    "--data.input_key prompt --data.label_key label --data.apply_chat_template",
    "--reward.remote_url reward_func.py",
    `--algo.advantage.estimator group_norm --rollout.n_samples_per_prompt ${GRPO_SAMPLES} --rollout.max_new_tokens ${input.maxResponseTokens}`,
    `--rollout.batch_size ${rolloutBatch} --train.batch_size ${trainBatch}`,
    `--actor.eps_clip_low_high ${CLIP_LOW} ${CLIP_HIGH}`,
    `--actor.num_nodes 1 --actor.num_gpus_per_node ${TRAINER_GPUS}`,
    `--actor.model_name_or_path ${MODEL}`,
  ];
  const notes = [
    `--rollout.batch_size ${rolloutBatch}: the largest power of two at most both the train split (${trainRows} rows) and OpenRLHF's default ${OPENRLHF_DEFAULT_ROLLOUT_BATCH}; --train.batch_size ${trainBatch} (the default ${OPENRLHF_DEFAULT_TRAIN_BATCH}, or every sample of one rollout batch when fewer) so each rollout gives at least one update.`,
    validation === "test" ? `Evaluation on test.jsonl (${testRows} rows).` : "Evaluation is off: the test split is empty, so the command names no --eval.dataset.",
    "Releases before the dotted options: --prompt_data train.jsonl --eval_dataset test.jsonl --input_key prompt --label_key label --apply_chat_template --remote_rm_url reward_func.py --advantage_estimator group_norm --n_samples_per_prompt 4 --rollout_batch_size / --train_batch_size as above (and RETURN_TENSOR_ONLY = True in reward_func.py for releases that expect a tensor).",
  ];
  return { trainer: "OpenRLHF", language: "shell", command: join(parts), settings: { rolloutBatchSize: rolloutBatch, trainBatchSize: trainBatch, gpus: TRAINER_GPUS, nSamplesPerPrompt: GRPO_SAMPLES, maxNewTokens: input.maxResponseTokens }, validation, notes };
}

function trlGrpoPlan(input: LaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < 1) return tooSmall("TRL", "python", input, "GRPOTrainer needs at least one prompt");
  const validation = testRows > 0 ? "test" : "off";
  const files = validation === "test" ? '{"train": "train.jsonl", "test": "test.jsonl"}' : '{"train": "train.jsonl"}';
  const config = `GRPOConfig(output_dir="grpo-judge", num_generations=${GRPO_SAMPLES}, max_completion_length=${input.maxResponseTokens}, epsilon=${CLIP_LOW}, epsilon_high=${CLIP_HIGH}${validation === "test" ? ', eval_strategy="epoch"' : ""})`;
  const lines = [
    "import os",
    "from datasets import load_dataset",
    "from trl import GRPOConfig, GRPOTrainer",
    "from reward_func import verdict_reward",
    "",
    `data = load_dataset("json", data_files=${files})`,
    "trainer = GRPOTrainer(",
    '    model=os.environ["MODEL"],',
    "    reward_funcs=[verdict_reward],",
    `    args=${config},`,
    '    train_dataset=data["train"],',
    ...(validation === "test" ? ['    eval_dataset=data["test"],'] : []),
    ")",
    "trainer.train()",
  ];
  const notes = [
    `GRPOTrainer passes the dataset's label column to verdict_reward as a keyword argument; ${GRPO_SAMPLES} generations per prompt divide TRL's default 8 per-device prompts.`,
    validation === "test" ? `Evaluation on test.jsonl (${testRows} rows) after every epoch.` : "Evaluation is off: the test split is empty, so the script loads no test file and passes no eval_dataset.",
  ];
  return { trainer: "TRL", language: "python", command: lines.join("\n"), settings: { numGenerations: GRPO_SAMPLES, maxCompletionLength: input.maxResponseTokens }, validation, notes };
}

function trlPrmPlan(input: LaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < 1) return tooSmall("TRL", "shell", input, "PRMTrainer needs at least one solution");
  const validation = testRows > 0 ? "test" : "off";
  const parts = [
    `accelerate launch ${TRL_CHECKOUT}/examples/scripts/prm.py`,
    "--dataset_name . --dataset_train_split train",
    validation === "test" ? "--dataset_test_split test --eval_strategy epoch" : "--dataset_test_split train",
    `--model_name_or_path ${MODEL}`,
    "--output_dir prm-judge --num_train_epochs 1",
  ];
  const notes = [
    "Run from the export directory: --dataset_name . loads it with datasets.load_dataset, which reads the splits from README.md's configs (train.parquet, test.parquet).",
    "PRMTrainer joins the prompt and the completions with step_separator (default newline) and labels the token ending each completion: true (Positive) or false (Negative). Its max_length (default 1024 tokens) truncates longer solutions: raise it with --max_length.",
    validation === "test"
      ? `Evaluation on the test split (${testRows} solutions) after every epoch and at the end.`
      : "Evaluation is off: the test split is empty and README.md lists no test split; the script always evaluates once after training, so --dataset_test_split train makes that final evaluation run on the train split.",
  ];
  return { trainer: "TRL", language: "shell", command: join(parts), settings: {}, validation, notes };
}

/** The launch plan the manifest holds for an export of this format and these split sizes. */
export function launchPlan(input: LaunchInput): LaunchPlan {
  switch (input.format) {
    case "verl":
      return verlPlan(input);
    case "openrlhf":
      return openrlhfPlan(input);
    case "trl":
      return trlGrpoPlan(input);
    case "trl-prm":
      return trlPrmPlan(input);
  }
}
