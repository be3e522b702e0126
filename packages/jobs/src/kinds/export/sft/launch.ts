import { PROMPT_TOKEN_MARGIN, promptTokenBound, TRAINER_GPUS, type LaunchPlan } from "../training-set/launch";
import { TRAINER_RELEASES, type TrainerRelease } from "../training-set/releases";
import type { SftFormat } from "./options";

export { SFT_FORMATS, type SftFormat } from "./options";

/**
 * How to start supervised fine-tuning on an exported SFT set: the command the
 * manifest gives for each format, with the batch sizes chosen from the split sizes
 * and the length limit from the longest row written, so that the trainer's own
 * checks pass. Each command is written for one release (SFT_TRAINER_RELEASES; the
 * export's requirements.txt pins it) and follows that release's rules, as its source
 * states them:
 *
 * - OpenRLHF 0.11.0 (`openrlhf.cli.train_sft`, chat-jsonl): blending_datasets loads a `.jsonl` path
 *   with `datasets.load_dataset("json")` (its only split is `train`) and a directory with
 *   `datasets.load_dataset(dir)` once `load_from_disk` fails, then takes `--data.dataset_split` /
 *   `--eval.split`. With `--data.apply_chat_template` and no `--data.output_key`, SFTDataset takes
 *   `data[input_key][:-1]` through the chat template as the prompt and the rest of the templated
 *   conversation as the response (loss on the response only); it drops a row whose prompt reaches
 *   `max_len - 2` tokens and cuts the rest at `data.max_len` (default 2048). DeepSpeed's gradient
 *   accumulation is `train.batch_size / micro_batch_size / GPUs` and must be at least 1, with
 *   `train.batch_size = micro × accumulation × GPUs`; an epoch has `rows // train.batch_size`
 *   updates and fit raises when that is 0. The train and evaluation samplers drop an incomplete
 *   round (drop_last), so an evaluation split with fewer rows than `micro_batch_size × GPUs`
 *   evaluates nothing. `--ds.packing_samples` only removes the padding inside a micro-batch; there
 *   is no packing to a token budget.
 * - TRL 1.9.0 (`trl sft`): options its parser does not know go to `accelerate launch`, which refuses
 *   them; `--accelerate_config <name>` loads trl/accelerate_configs/<name>.yaml (8 processes).
 *   `--dataset_name` goes to `datasets.load_dataset` (the pinned datasets 4.7.0 cannot load `.`: it
 *   names the builder after the path's last component and raises when that is empty); the script
 *   reads `dataset[dataset_test_split]` only when `eval_strategy` is not `no`. With `--packing`
 *   (strategy `bfd`) rows are packed into sequences of `max_length` tokens (default 1024), a longer
 *   row losing its overflow, and padding-free training is forced, which needs a Flash Attention
 *   implementation. A `messages` dataset trains on the whole conversation unless
 *   `--assistant_only_loss`. The global batch is `per_device_train_batch_size × processes ×
 *   gradient_accumulation_steps` packed sequences; the Trainer keeps an incomplete last batch.
 * - verl 0.9.0 (`verl.trainer.sft_trainer`, run with torchrun; there is no fsdp_sft_trainer in this
 *   release): MultiTurnSFTDataset reads `data.messages_key` (default `messages`) from the parquet
 *   files and masks the loss to assistant turns; `data.truncation` defaults to error, so a row above
 *   `data.max_length` (default 1024) stops the run. Each data-parallel rank takes
 *   `data.train_batch_size // ranks` rows per step (default 256) from a drop_last sampler and
 *   dataloader, and fit divides by the number of steps, so a train file must hold one global
 *   batch; the validation dataloader uses the same per-rank batch, and with fewer rows it has no
 *   batch (val/loss is nan). `data.use_dynamic_bsz` (default true) packs each rank's rows into
 *   micro-batches of at most `data.max_token_len_per_gpu` tokens (default 8192), which must cover
 *   the longest sequence. `trainer.test_freq` > 0 without `data.val_files` fails.
 */

/** The paper's SFT settings: learning rate, tokens per packed sequence, global batch. */
export const SFT_LEARNING_RATE = 1e-5;
export const SFT_PACKED_TOKENS = 8192;
export const SFT_GLOBAL_BATCH = 32;

/** TRL: one packed sequence per GPU per forward pass, accumulated to the global batch. */
export const TRL_SFT_PER_DEVICE_BATCH = 1;
export const TRL_SFT_ACCUMULATION = SFT_GLOBAL_BATCH / (TRL_SFT_PER_DEVICE_BATCH * TRAINER_GPUS);
/** TRL's accelerate configuration for one node of 8 GPUs that the pinned accelerate 1.4.0 runs (fsdp2 needs 1.7.0, the zero ones DeepSpeed). */
export const TRL_SFT_ACCELERATE_CONFIG = "fsdp1";
/** OpenRLHF: one row per GPU per forward pass (at most max_len tokens, as a packed sequence would be). */
export const OPENRLHF_SFT_MICRO_BATCH = 1;

const MODEL = '"${MODEL:?set MODEL to the base model to train}"';
const OUTPUT_DIR = "sft-model";
const LR = SFT_LEARNING_RATE.toExponential();

const TRL_NOTE = TRAINER_RELEASES.trl.notes.at(-1)!;

/** The release each SFT format's launch line is written for: the judge training sets' releases and pins, with the SFT entry point's files. */
export const SFT_TRAINER_RELEASES: Record<SftFormat, TrainerRelease> = {
  "chat-jsonl": {
    ...TRAINER_RELEASES.openrlhf,
    checked: [
      "openrlhf/cli/train_sft.py",
      "openrlhf/datasets/sft_dataset.py",
      "openrlhf/datasets/utils.py",
      "openrlhf/trainer/sft_trainer.py",
      "openrlhf/utils/deepspeed/deepspeed.py",
      "openrlhf/utils/distributed_sampler.py",
      "openrlhf/utils/loss_utils.py",
      "openrlhf/utils/config.py",
      "openrlhf/models/actor.py",
    ],
    notes: [...TRAINER_RELEASES.openrlhf.notes, "train_sft uses neither vLLM nor Ray; requirements.txt keeps their pins all the same, since vllm==0.27.1 is what decides the torch version."],
  },
  "trl-sft": {
    ...TRAINER_RELEASES.trl,
    checked: [
      "trl/scripts/sft.py",
      "trl/scripts/utils.py",
      "trl/cli/commands/training.py",
      "trl/cli/accelerate_config.py",
      "trl/cli/accelerate_launcher.py",
      "trl/accelerate_configs/fsdp1.yaml",
      "trl/trainer/sft_config.py",
      "trl/trainer/sft_trainer.py",
      "trl/trainer/base_config.py",
      "trl/trainer/model_config.py",
      "trl/data_utils.py",
      "trl/chat_template_utils.py",
    ],
    notes: [
      "flash-attn is not pinned: TRL names no version of it. The launch line's --attn_implementation flash_attention_2 needs it built for the pinned torch (pip install flash-attn --no-build-isolation, as ModelConfig's help says); or pip install kernels and pass --attn_implementation kernels-community/flash-attn2 instead (docs/source/kernels_hub.md).",
      TRL_NOTE,
    ],
  },
  "verl-sft": {
    ...TRAINER_RELEASES.verl,
    checked: [
      "verl/trainer/sft_trainer.py",
      "verl/trainer/config/sft_trainer_engine.yaml",
      "verl/trainer/config/model/hf_model.yaml",
      "verl/trainer/config/engine/fsdp.yaml",
      "verl/trainer/config/optim/fsdp.yaml",
      "verl/utils/dataset/multiturn_sft_dataset.py",
      "verl/utils/seqlen_balancing.py",
      "verl/workers/engine/utils.py",
      "verl/workers/config/optimizer.py",
      "verl/workers/config/engine.py",
    ],
    notes: [...TRAINER_RELEASES.verl.notes, "v0.9.0 has no verl/trainer/fsdp_sft_trainer.py: its SFT trainers are verl.trainer.sft_trainer (torchrun, the one the launch line runs) and verl.trainer.sft_trainer_ray (the same config, on Ray)."],
  },
};

export interface SftLaunchInput {
  format: SftFormat;
  trainRows: number;
  testRows: number;
  /** The longest row written over both splits: UTF-8 bytes of its prompt and response. */
  maxSequenceBytes: number;
}

/** The sequence length the commands allow: the packed length, or the longest row's token bound when that is longer. */
export function sftMaxLength(maxSequenceBytes: number): number {
  return Math.max(SFT_PACKED_TOKENS, promptTokenBound(maxSequenceBytes));
}

/** The global batch in rows (OpenRLHF, verl): the largest multiple of the GPU count at most both the train split and the paper's batch; 0 when none. */
export function sftTrainBatch(trainRows: number): number {
  return Math.floor(Math.min(trainRows, SFT_GLOBAL_BATCH) / TRAINER_GPUS) * TRAINER_GPUS;
}

/** The smallest train split a command can run on: one row per GPU for OpenRLHF and verl, one row for TRL. */
export function minimumSftTrainRows(format: SftFormat): number {
  return format === "trl-sft" ? 1 : TRAINER_GPUS;
}

function join(parts: string[]): string {
  return parts.join(" \\\n  ");
}

function tooSmall(trainer: LaunchPlan["trainer"], input: SftLaunchInput, why: string): LaunchPlan {
  return { trainer, language: "shell", command: null, settings: {}, validation: input.testRows > 0 ? "test" : "off", notes: [`No command: the train split has ${input.trainRows} rows; ${why}.`] };
}

function releaseNote(format: SftFormat): string {
  const release = SFT_TRAINER_RELEASES[format];
  return `Written for ${release.trainer} ${release.release} (${release.repository}, tag ${release.tag}, commit ${release.sourceCommit}); requirements.txt pins it: pip install -r requirements.txt.`;
}

function lengthNote(input: SftLaunchInput, what: string): string {
  const bound = promptTokenBound(input.maxSequenceBytes);
  return `${what} ${sftMaxLength(input.maxSequenceBytes)} tokens: the paper's ${SFT_PACKED_TOKENS}, or more when the longest row needs it. The longest row written is ${input.maxSequenceBytes} bytes of UTF-8 (prompt and response), and the export does not tokenize, so it bounds its tokens by ${bound}: its bytes (a byte-level BPE or byte-fallback SentencePiece token covers at least one byte) plus ${PROMPT_TOKEN_MARGIN} for the chat template and special tokens.`;
}

function batchNote(trainBatch: number, trainRows: number, setting: string): string {
  return trainBatch === SFT_GLOBAL_BATCH
    ? `${setting}${trainBatch}: the paper's global batch, a multiple of the ${TRAINER_GPUS} GPUs.`
    : `${setting}${trainBatch}: the train split (${trainRows} rows) is smaller than the paper's global batch of ${SFT_GLOBAL_BATCH}, so the largest multiple of the ${TRAINER_GPUS} GPUs it fills.`;
}

function openrlhfPlan(input: SftLaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < minimumSftTrainRows("chat-jsonl")) {
    return tooSmall("OpenRLHF", input, `train_sft on ${TRAINER_GPUS} GPUs needs a global batch of at least one row per GPU (DeepSpeed's gradient accumulation, train.batch_size / micro_batch_size / GPUs, must be at least 1) and at most the train split (an epoch has rows // train.batch_size updates), so at least ${TRAINER_GPUS} rows`);
  }
  const trainBatch = sftTrainBatch(trainRows);
  const accumulation = trainBatch / (OPENRLHF_SFT_MICRO_BATCH * TRAINER_GPUS);
  const maxLen = sftMaxLength(input.maxSequenceBytes);
  const validation = testRows >= OPENRLHF_SFT_MICRO_BATCH * TRAINER_GPUS ? "test" : "off";
  const parts = [
    `deepspeed --num_gpus ${TRAINER_GPUS} --module openrlhf.cli.train_sft`,
    `--data.dataset "$PWD" --data.dataset_split train${validation === "test" ? ' --eval.dataset "$PWD" --eval.split test' : ""}`,
    "--data.input_key messages --data.apply_chat_template",
    `--data.max_len ${maxLen}`,
    `--train.batch_size ${trainBatch} --train.micro_batch_size ${OPENRLHF_SFT_MICRO_BATCH}`,
    `--adam.lr ${LR}`,
    "--model.gradient_checkpointing_enable",
    `--model.model_name_or_path ${MODEL}`,
    `--ckpt.output_dir ${OUTPUT_DIR}`,
  ];
  const notes = [
    releaseNote("chat-jsonl"),
    `Run from the export directory: --data.dataset "$PWD" makes blending_datasets load the directory with datasets.load_dataset (after load_from_disk fails, which it prints), so the splits come from README.md's configs and the column types from its dataset_info. Given train.jsonl itself, datasets would infer each 10 MB chunk's types on its own and cast the later chunks to the first one's, and a selection file whose first chunk holds only whole-number scores (JSON writes 1, not 1.0) would fail at a later fractional one (ArrowInvalid: Float value ... was truncated converting to int64).`,
    "--data.input_key messages with --data.apply_chat_template: SFTDataset applies the tokenizer's chat template to the user message (with the generation prompt) as the prompt and trains on the rest of the templated conversation, the assistant's response. The other keys of each row are dropped when the dataset is tokenized.",
    `${lengthNote(input, "--data.max_len (default 2048) is")} OpenRLHF ${TRAINER_RELEASES.openrlhf.release} does not pack rows to a token budget (--ds.packing_samples only removes the padding inside a micro-batch), so each forward pass holds one row of at most that many tokens (--train.micro_batch_size ${OPENRLHF_SFT_MICRO_BATCH}).`,
    `${batchNote(trainBatch, trainRows, "--train.batch_size ")} DeepSpeed accumulates ${accumulation} micro-batch${accumulation === 1 ? "" : "es"} of ${OPENRLHF_SFT_MICRO_BATCH} row on each GPU per update.`,
    `--adam.lr ${LR} (default 5e-6); the schedule is train_sft's default (cosine_with_min_lr, 3% warmup) and the epochs its default 2 (--train.max_epochs).`,
    validation === "test"
      ? `Evaluation on the test split (test.jsonl, ${testRows} rows) once per epoch.`
      : testRows > 0
        ? `Evaluation is off: the test split's ${testRows} rows are fewer than the ${TRAINER_GPUS} GPUs, and train_sft's evaluation sampler drops an incomplete round (drop_last), so it would evaluate none; the command names no --eval.dataset.`
        : "Evaluation is off: the test split is empty, so the command names no --eval.dataset.",
  ];
  return {
    trainer: "OpenRLHF",
    language: "shell",
    command: join(parts),
    settings: { trainBatchSize: trainBatch, microTrainBatchSize: OPENRLHF_SFT_MICRO_BATCH, gradientAccumulation: accumulation, gpus: TRAINER_GPUS, maxLen, learningRate: SFT_LEARNING_RATE },
    validation,
    notes,
  };
}

function trlPlan(input: SftLaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < minimumSftTrainRows("trl-sft")) return tooSmall("TRL", input, "SFTTrainer needs at least one row");
  const maxLength = sftMaxLength(input.maxSequenceBytes);
  const validation = testRows > 0 ? "test" : "off";
  const parts = [
    `trl sft --accelerate_config ${TRL_SFT_ACCELERATE_CONFIG}`,
    '--dataset_name "$PWD" --dataset_train_split train',
    ...(validation === "test" ? ["--dataset_test_split test --eval_strategy epoch"] : []),
    `--model_name_or_path ${MODEL} --attn_implementation flash_attention_2`,
    `--packing --max_length ${maxLength}`,
    "--assistant_only_loss",
    `--learning_rate ${LR}`,
    `--per_device_train_batch_size ${TRL_SFT_PER_DEVICE_BATCH} --gradient_accumulation_steps ${TRL_SFT_ACCUMULATION}`,
    `--output_dir ${OUTPUT_DIR}`,
  ];
  const release = SFT_TRAINER_RELEASES["trl-sft"];
  const notes = [
    releaseNote("trl-sft"),
    `trl sft runs trl/scripts/sft.py (in the wheel) through accelerate launch; --accelerate_config ${TRL_SFT_ACCELERATE_CONFIG} is TRL's own configuration for one node of ${TRAINER_GPUS} processes with FSDP and bf16 (fsdp2 needs accelerate 1.7.0, above the pinned 1.4.0; the zero configurations need DeepSpeed, which requirements.txt does not install).`,
    `Run from the export directory: --dataset_name "$PWD" loads it with datasets.load_dataset, which reads the splits from README.md's configs (train.jsonl, test.jsonl) and the column types from its dataset_info. The path is absolute because datasets ${TRAINER_RELEASES.trl.requirements.find((pin) => pin.name === "datasets")!.version} cannot load ".": it names the builder after the path's last component, empty for ".", and raises "dataset_name should be specified but got None". Each row's messages make it a conversational dataset; its other columns are dropped when the rows are packed.`,
    `--packing packs rows (best-fit decreasing, never splitting one) into sequences of --max_length tokens. ${lengthNote(input, "--max_length (default 1024; a longer row would lose its overflow) is")} Packing makes training padding-free, which needs Flash Attention (SFTTrainer warns that other attention lets packed rows see each other): --attn_implementation flash_attention_2. ${release.notes[0]}`,
    "--assistant_only_loss trains on the response only, as OpenRLHF and verl do; TRL swaps in a training chat template with generation markers for the model families it knows (Llama 3, Qwen 2.5 and 3, Gemma, Phi-3 and others, trl/chat_template_utils.py) and raises for any other template without them: give that model a template with {% generation %} markers, or drop the flag to train on the whole conversation.",
    `Global batch ${SFT_GLOBAL_BATCH} packed sequences: --per_device_train_batch_size ${TRL_SFT_PER_DEVICE_BATCH} × ${TRAINER_GPUS} processes × --gradient_accumulation_steps ${TRL_SFT_ACCUMULATION}. A set with fewer packed sequences makes one shorter step per epoch: the Trainer keeps an incomplete batch and accelerate repeats rows so every process has one.`,
    `--learning_rate ${LR} (SFTConfig's default 2e-5); the schedule and epochs are TrainingArguments' defaults (linear decay, no warmup, 3 epochs).`,
    validation === "test" ? `Evaluation on the test split (${testRows} rows) after every epoch.` : "Evaluation is off: the test split is empty and README.md lists no test split; with eval_strategy left at no the script never reads one.",
  ];
  return {
    trainer: "TRL",
    language: "shell",
    command: join(parts),
    settings: {
      perDeviceTrainBatchSize: TRL_SFT_PER_DEVICE_BATCH,
      gradientAccumulationSteps: TRL_SFT_ACCUMULATION,
      processes: TRAINER_GPUS,
      globalBatch: SFT_GLOBAL_BATCH,
      packing: true,
      maxLength,
      learningRate: SFT_LEARNING_RATE,
    },
    validation,
    notes,
  };
}

function verlPlan(input: SftLaunchInput): LaunchPlan {
  const { trainRows, testRows } = input;
  if (trainRows < minimumSftTrainRows("verl-sft")) {
    return tooSmall("verl", input, `verl's SFT trainer on ${TRAINER_GPUS} GPUs gives each rank train_batch_size // ${TRAINER_GPUS} rows per step from a drop_last sampler, so a global batch needs at least ${TRAINER_GPUS} rows`);
  }
  const trainBatch = sftTrainBatch(trainRows);
  const maxLength = sftMaxLength(input.maxSequenceBytes);
  const validation = testRows >= trainBatch ? "test" : "off";
  const parts = [
    `torchrun --standalone --nnodes=1 --nproc_per_node=${TRAINER_GPUS} -m verl.trainer.sft_trainer`,
    `data.train_files=train.parquet${validation === "test" ? " data.val_files=test.parquet" : ""} data.messages_key=messages`,
    `data.train_batch_size=${trainBatch}`,
    `data.max_length=${maxLength} data.max_token_len_per_gpu=${maxLength}`,
    `model.path=${MODEL}`,
    `optim.lr=${LR}`,
    `trainer.default_local_dir=${OUTPUT_DIR} trainer.logger="[console]"`,
  ];
  const notes = [
    releaseNote("verl-sft"),
    "data.messages_key=messages: MultiTurnSFTDataset tokenizes each message with the chat template and trains on the assistant's message; the other columns of the parquet files are read and left unused.",
    `data.max_token_len_per_gpu=${maxLength} with data.use_dynamic_bsz (on by default): each GPU's rows are packed into micro-batches of at most that many tokens. ${lengthNote(input, "data.max_length (default 1024; data.truncation=error stops the run on a longer row) is")}`,
    `${batchNote(trainBatch, trainRows, "data.train_batch_size=")} Each of the ${TRAINER_GPUS} ranks takes ${trainBatch / TRAINER_GPUS} row${trainBatch === TRAINER_GPUS ? "" : "s"} per step.`,
    `optim.lr=${LR} (the SFT config's default is 1e-3); the schedule is its default (constant, no warmup) and the epochs its default 4 (trainer.total_epochs).`,
    'trainer.logger="[console]": the default also logs to Weights & Biases, which needs an account. Checkpoints go to sft-model (trainer.resume_mode auto resumes from the last one there).',
    validation === "test"
      ? `Validation on test.parquet (${testRows} rows) after the last step (data.val_files; add trainer.test_freq=after_each_epoch to validate every epoch).`
      : testRows > 0
        ? `Validation is off: the test split's ${testRows} rows are fewer than one global batch (${trainBatch}), and the validation dataloader takes the train batch per rank with drop_last, so it would have no batch; the command names no data.val_files.`
        : "Validation is off: the test split is empty, so the command names no data.val_files.",
  ];
  return {
    trainer: "verl",
    language: "shell",
    command: join(parts),
    settings: { trainBatchSize: trainBatch, gpus: TRAINER_GPUS, maxLength, maxTokenLenPerGpu: maxLength, useDynamicBsz: true, learningRate: SFT_LEARNING_RATE },
    validation,
    notes,
  };
}

/** The launch plan the manifest holds for an SFT export of this format and these split sizes. */
export function sftLaunchPlan(input: SftLaunchInput): LaunchPlan {
  switch (input.format) {
    case "chat-jsonl":
      return openrlhfPlan(input);
    case "trl-sft":
      return trlPlan(input);
    case "verl-sft":
      return verlPlan(input);
  }
}
