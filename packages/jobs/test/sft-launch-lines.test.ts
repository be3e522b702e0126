import { describe, expect, it } from "vitest";
import { PROMPT_TOKEN_MARGIN, promptTokenBound, requirementsTxt, TRAINER_GPUS, TRAINER_RELEASES } from "../src";
import {
  minimumSftTrainRows,
  SFT_FORMATS,
  SFT_GLOBAL_BATCH,
  SFT_PACKED_TOKENS,
  SFT_TRAINER_RELEASES,
  sftLaunchPlan,
  sftMaxLength,
  sftTrainBatch,
  type SftFormat,
} from "../src/kinds/export/sft/launch";
import {
  checkSftLaunch,
  OPENRLHF_SFT_OPTIONS,
  sftFixtureHeader,
  sftFixtureRelease,
  shellWords,
  TRL_ACCELERATE_CONFIGS,
  TRL_SFT_OPTIONS,
  trlSftGlobalBatch,
  VERL_SFT_CHOICES,
  VERL_SFT_KEYS,
  type SftExportedSplits,
} from "./trainer-launch";

/** The longest row of the exports these tests show (prompt and response), in UTF-8 bytes. */
const SEQUENCE_BYTES = 6000;

const extension = (format: SftFormat) => (format === "verl-sft" ? "parquet" : "jsonl");

/** The files an SFT export of `format` writes for these split sizes, the splits its dataset card lists (non-empty ones), and its longest row's token bound. */
function exported(format: SftFormat, train: number, test: number, bytes = SEQUENCE_BYTES): SftExportedSplits {
  const ext = extension(format);
  const cardSplits: Record<string, string> = {};
  if (train > 0) cardSplits.train = `train.${ext}`;
  if (test > 0) cardSplits.test = `test.${ext}`;
  return { rows: { [`train.${ext}`]: train, [`test.${ext}`]: test }, cardSplits, sequenceTokens: promptTokenBound(bytes) };
}

const plan = (format: SftFormat, train: number, test: number, bytes = SEQUENCE_BYTES) => sftLaunchPlan({ format, trainRows: train, testRows: test, maxSequenceBytes: bytes });

const command = (format: SftFormat, train: number, test: number) => {
  const made = plan(format, train, test);
  if (made.command === null) throw new Error(`no command for ${format} with ${train}/${test} rows`);
  return made.command;
};

/** Replaces `from` in a command, failing if it is not there: a mutation that silently does nothing would prove nothing. */
function mutate(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`${String(from)} is not in the command`);
  return out;
}

const after = (text: string, flag: string) => {
  const words = shellWords(text);
  return words[words.indexOf(flag) + 1];
};

describe("SFT launch lines", () => {
  it("the vendored definitions are the releases' own (spot checks of what the commands rely on)", () => {
    expect(OPENRLHF_SFT_OPTIONS.get("--data.max_len")).toEqual({ kind: "value", type: "int", choices: null, default: "2048" });
    expect(OPENRLHF_SFT_OPTIONS.get("--train.batch_size")?.default).toBe("128");
    expect(OPENRLHF_SFT_OPTIONS.get("--train.micro_batch_size")?.default).toBe("8");
    expect(OPENRLHF_SFT_OPTIONS.get("--data.apply_chat_template")?.kind).toBe("flag");
    expect(OPENRLHF_SFT_OPTIONS.get("--adam.lr")).toMatchObject({ type: "float", default: "5e-06" });
    expect(OPENRLHF_SFT_OPTIONS.get("--eval.split")?.default).toBe("'train'");
    expect(OPENRLHF_SFT_OPTIONS.get("--ds.packing_samples")?.kind).toBe("flag");
    expect(TRL_SFT_OPTIONS.get("--max_length")).toMatchObject({ kind: "value", type: "int", default: "1024", class: "SFTConfig" });
    expect(TRL_SFT_OPTIONS.get("--packing")).toMatchObject({ kind: "bool", default: "False" });
    expect(TRL_SFT_OPTIONS.get("--packing_strategy")?.choices).toEqual(["bfd", "bfd_split", "wrapped"]);
    expect(TRL_SFT_OPTIONS.get("--learning_rate")).toMatchObject({ type: "float", default: "2e-05", class: "SFTConfig" });
    expect(TRL_SFT_OPTIONS.get("--accelerate_config")?.class).toBe("trl sft CLI");
    expect(TRL_SFT_OPTIONS.get("--per_device_train_batch_size")?.class).toBe("TrainingArguments");
    expect(TRL_ACCELERATE_CONFIGS.get("fsdp1")).toEqual({ distributedType: "FSDP", numProcesses: 8, mixedPrecision: "bf16", requires: null });
    expect(TRL_ACCELERATE_CONFIGS.get("fsdp2")?.requires).toBe("accelerate>=1.7.0");
    expect(VERL_SFT_KEYS.get("data.train_batch_size")).toBe(256);
    expect(VERL_SFT_KEYS.get("data.max_length")).toBe(1024);
    expect(VERL_SFT_KEYS.get("data.max_token_len_per_gpu")).toBe(8192);
    expect(VERL_SFT_KEYS.get("data.use_dynamic_bsz")).toBe(true);
    expect(VERL_SFT_KEYS.get("data.messages_key")).toBe("messages");
    expect(VERL_SFT_KEYS.get("data.truncation")).toBe("error");
    expect(VERL_SFT_KEYS.get("optim.lr")).toBe(0.001);
    expect(VERL_SFT_KEYS.get("trainer.logger")).toEqual(["console", "wandb"]);
    expect(VERL_SFT_CHOICES.get("data.pad_mode")).toEqual(["right", "no_padding"]);
  });

  it("every format's fixtures name one release, the one the export pins, and its requirements.txt is exact pins", () => {
    const pin = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[0-9][0-9A-Za-z.+!-]*$/;
    const packages: Record<string, string> = { verl: "verl", OpenRLHF: "openrlhf", TRL: "trl" };
    for (const format of SFT_FORMATS) {
      const release = SFT_TRAINER_RELEASES[format];
      expect(sftFixtureRelease(format), format).toEqual({ trainer: release.trainer, release: release.release, tag: release.tag, commit: release.sourceCommit });
      expect(sftFixtureHeader(format).join("\n"), format).toContain(`github.com/${release.repository}`);
      const lines = requirementsTxt(release).trimEnd().split("\n");
      for (const line of lines) expect(line, `${format}: ${line}`).toMatch(pin);
      expect(lines[0]).toBe(`${packages[release.trainer]}==${release.release}`);
    }
    // The same releases as the judge training sets, with the same pins.
    expect(SFT_TRAINER_RELEASES["chat-jsonl"].requirements).toEqual(TRAINER_RELEASES.openrlhf.requirements);
    expect(SFT_TRAINER_RELEASES["trl-sft"].requirements).toEqual(TRAINER_RELEASES.trl.requirements);
    expect(SFT_TRAINER_RELEASES["verl-sft"].requirements).toEqual(TRAINER_RELEASES.verl.requirements);
    expect(SFT_TRAINER_RELEASES["chat-jsonl"].checked).toContain("openrlhf/cli/train_sft.py");
    expect(SFT_TRAINER_RELEASES["verl-sft"].checked).toContain("verl/trainer/sft_trainer.py");
    expect(SFT_TRAINER_RELEASES["trl-sft"].checked).toContain("trl/scripts/sft.py");
  });

  it("the paper's settings: learning rate 1e-5, 8192 tokens, global batch 32 on 8 GPUs, less only when the train split is smaller", () => {
    expect(TRAINER_GPUS).toBe(8);
    expect([1, 7, 8, 15, 16, 31, 32, 33, 1000].map(sftTrainBatch)).toEqual([0, 0, 8, 8, 16, 24, 32, 32, 32]);
    expect(sftMaxLength(0)).toBe(SFT_PACKED_TOKENS);
    expect(sftMaxLength(20_000)).toBe(20_000 + PROMPT_TOKEN_MARGIN);
    for (const format of SFT_FORMATS) {
      const big = command(format, 1500, 120);
      expect(big, format).toMatch(/(--adam\.lr |--learning_rate |optim\.lr=)1e-5\b/);
      expect(plan(format, 1500, 120).settings.learningRate).toBe(1e-5);
    }
    expect(after(command("chat-jsonl", 1500, 120), "--train.batch_size")).toBe("32");
    expect(shellWords(command("verl-sft", 1500, 120))).toContain("data.train_batch_size=32");
    expect(trlSftGlobalBatch(command("trl-sft", 1500, 120))).toBe(SFT_GLOBAL_BATCH);
    expect(shellWords(command("trl-sft", 1500, 120))).toContain("--packing");
    expect(after(command("trl-sft", 1500, 120), "--max_length")).toBe("8192");
    expect(shellWords(command("verl-sft", 1500, 120))).toEqual(expect.arrayContaining(["data.max_length=8192", "data.max_token_len_per_gpu=8192"]));
    expect(after(command("chat-jsonl", 1500, 120), "--data.max_len")).toBe("8192");
  });

  const sizes: Array<[number, number]> = [
    [100_000, 5000],
    [1500, 120],
    [100, 10],
    [33, 0],
    [33, 40],
    [31, 31],
    [31, 3],
    [9, 8],
    [8, 0],
    [5, 5],
    [5, 0],
    [1, 1],
    [1, 0],
    [0, 3],
  ];
  for (const format of SFT_FORMATS) {
    it(`${format}: every generated command passes the release's checks, for tiny and large splits, with and without a test split`, () => {
      for (const [train, test] of sizes) {
        const made = plan(format, train, test);
        if (train < minimumSftTrainRows(format)) {
          expect(made.command, `${train}/${test}`).toBeNull();
          expect(made.notes[0], `${train}/${test}`).toMatch(new RegExp(`^No command: the train split has ${train} rows`));
          continue;
        }
        expect(made.command, `${train}/${test}`).not.toBeNull();
        expect(checkSftLaunch(format, made.command!, exported(format, train, test)), `${train}/${test} rows`).toEqual([]);
        if (format !== "trl-sft") {
          const batch = Number(made.settings.trainBatchSize);
          expect(batch % TRAINER_GPUS, `${train}/${test}`).toBe(0);
          expect(batch <= Math.min(train, SFT_GLOBAL_BATCH)).toBe(true);
        }
        if (test === 0) expect(made.validation).toBe("off");
        if (made.validation === "off") expect(made.command).not.toMatch(/test\.parquet|--eval|--dataset_test_split/);
      }
    });
  }

  it("validation is on when the test split can fill what the evaluation needs, and the note says why when it cannot", () => {
    expect(plan("chat-jsonl", 100, 8).validation).toBe("test");
    expect(plan("chat-jsonl", 100, 7).validation).toBe("off");
    expect(plan("chat-jsonl", 100, 7).notes.join("\n")).toMatch(/fewer than the 8 GPUs/);
    expect(plan("trl-sft", 100, 1).validation).toBe("test");
    expect(plan("verl-sft", 100, 32).validation).toBe("test");
    expect(plan("verl-sft", 100, 31).validation).toBe("off");
    expect(plan("verl-sft", 20, 16).validation).toBe("test");
    expect(plan("verl-sft", 100, 31).notes.join("\n")).toMatch(/fewer than one global batch \(32\)/);
    for (const format of SFT_FORMATS) expect(plan(format, 100, 0).notes.join("\n"), format).toMatch(/test split is empty/);
  });

  it("the length limit covers the longest row: max(8192, its token bound)", () => {
    const bytes = 20_000;
    const need = bytes + PROMPT_TOKEN_MARGIN;
    expect(after(plan("chat-jsonl", 300, 40, bytes).command!, "--data.max_len")).toBe(String(need));
    expect(after(plan("trl-sft", 300, 40, bytes).command!, "--max_length")).toBe(String(need));
    expect(shellWords(plan("verl-sft", 300, 40, bytes).command!)).toEqual(expect.arrayContaining([`data.max_length=${need}`, `data.max_token_len_per_gpu=${need}`]));
    for (const format of SFT_FORMATS) {
      expect(checkSftLaunch(format, plan(format, 300, 40, bytes).command!, exported(format, 300, 40, bytes)), format).toEqual([]);
      // The 8192-token command does not fit these rows.
      expect(checkSftLaunch(format, command(format, 300, 40), exported(format, 300, 40, bytes)).join("\n"), format).toMatch(new RegExp(`is 8192, below ${need}`));
    }
    expect(plan("trl-sft", 300, 40).notes.join("\n")).toContain(`The longest row written is ${SEQUENCE_BYTES} bytes of UTF-8`);
  });

  describe("the checks fail on a wrong flag, a missing required setting and a broken cross-argument rule", () => {
    it("OpenRLHF train_sft", () => {
      const sft = command("chat-jsonl", 1500, 120);
      const splits = exported("chat-jsonl", 1500, 120);
      const check = (broken: string, on = splits) => checkSftLaunch("chat-jsonl", broken, on);
      expect(check(sft)).toEqual([]);
      expect(check(mutate(sft, "--data.input_key", "--data.inputkey"))).toContain("--data.inputkey is not an option of train_sft");
      expect(check(mutate(sft, " --data.apply_chat_template", ""))).toContain("--data.apply_chat_template is not set: SFTDataset would format the message list into --data.input_template as text");
      expect(check(mutate(sft, /--model\.model_name_or_path "[^"]*"/, ""))).toContain("--model.model_name_or_path is not set: Actor has no model to load");
      expect(check(mutate(sft, "--data.input_key messages", "--data.input_key input"))).toContain("--data.input_key input is not the rows' messages key (messages)");
      expect(check(`${sft} --data.multiturn --data.output_key response`).join("\n")).toMatch(/--data.output_key is set/);
      expect(check(mutate(sft, "--train.batch_size 32", "--train.batch_size 12"))).toContain(
        "--train.batch_size 12 must be a positive multiple of --train.micro_batch_size 1 × 8 GPUs (DeepSpeed: train_batch_size = micro_batch_per_gpu × gradient_acc_step × world_size)",
      );
      expect(check(mutate(sft, "--train.micro_batch_size 1", "--train.micro_batch_size 8")).join("\n")).toMatch(/--train.batch_size 32 must be a positive multiple of --train.micro_batch_size 8 × 8 GPUs/);
      expect(check(mutate(sft, "--train.batch_size 32", "--train.batch_size big"))).toContain("--train.batch_size big: invalid int value (type=int in train_sft)");
      expect(check(`${sft} --ds.param_dtype fp32`)).toContain("--ds.param_dtype fp32: invalid choice (choose from 'bf16', 'fp16')");
      expect(check(`${sft} --ds.ring_attn_size 2`)).toContain("packing_samples must be enabled when using ring attention");
      expect(check(mutate(sft, /--data\.max_len \d+/, "--data.max_len 2048")).join("\n")).toMatch(/--data.max_len is 2048, below 6256/);
      expect(check(sft, exported("chat-jsonl", 20, 120))).toContain("num_update_steps_per_epoch must be positive, got 0: --train.batch_size 32 exceeds the 20 rows of the train split");
      expect(check(sft, exported("chat-jsonl", 1500, 5)).join("\n")).toMatch(/the evaluation split has 5 rows, fewer than --train.micro_batch_size 1 × 8 ranks/);
      expect(check(sft, exported("chat-jsonl", 1500, 0))).toContain("--eval.split test is not a split of the dataset card");
      expect(check(mutate(sft, '--data.dataset "$PWD"', "--data.dataset .")).join("\n")).toMatch(/--data.dataset .: datasets.load_dataset\("."\) raises "dataset_name should be specified but got None"/);
      // The JSONL file itself is a dataset too, with its one split, train.
      expect(check(mutate(sft, '--data.dataset "$PWD" --data.dataset_split train', "--data.dataset train.jsonl"))).toEqual([]);
      expect(check(mutate(sft, '--eval.dataset "$PWD" --eval.split test', "--eval.dataset test.jsonl --eval.split test"))).toContain("--eval.split test: a JSONL file's only split is train");
    });

    it("TRL trl sft", () => {
      const sft = command("trl-sft", 300, 40);
      const splits = exported("trl-sft", 300, 40);
      const check = (broken: string, on = splits) => checkSftLaunch("trl-sft", broken, on);
      expect(check(sft)).toEqual([]);
      expect(check(mutate(sft, "--max_length", "--max_len"))).toContain("--max_len is not an option of trl sft");
      expect(check(mutate(sft, /--model_name_or_path "[^"]*" /, ""))).toContain("--model_name_or_path is not set");
      expect(check(mutate(sft, '--dataset_name "$PWD" ', ""))).toContain("Either `datasets` or `dataset_name` must be provided.");
      expect(check(mutate(sft, '--dataset_name "$PWD"', "--dataset_name .")).join("\n")).toMatch(/--dataset_name .: datasets.load_dataset\("."\) raises/);
      expect(check(mutate(sft, "--accelerate_config fsdp1", "--accelerate_config fsdp2"))).toContain("--accelerate_config fsdp2 requires accelerate>=1.7.0, and requirements.txt pins accelerate==1.4.0");
      expect(check(mutate(sft, "--accelerate_config fsdp1", "--accelerate_config zero3"))).toContain("--accelerate_config zero3 runs DeepSpeed, which requirements.txt does not install");
      expect(check(mutate(sft, "--accelerate_config fsdp1", "--accelerate_config fsdp"))).toContain("Accelerate config fsdp is neither a file nor a valid config in the `trl` package.");
      expect(check(mutate(sft, "trl sft --accelerate_config fsdp1", "trl sft")).join("\n")).toMatch(/--accelerate_config is not set/);
      expect(check(mutate(sft, " --attn_implementation flash_attention_2", "")).join("\n")).toMatch(/--attn_implementation None: padding-free training \(which --packing with strategy bfd forces\) needs one of flash_attention_2/);
      expect(check(mutate(sft, "--assistant_only_loss", "--assistant_only_loss false")).join("\n")).toMatch(/--assistant_only_loss is not set/);
      expect(check(`${sft} --packing_strategy first_fit`)).toContain("--packing_strategy first_fit: invalid choice (choose from 'bfd', 'bfd_split', 'wrapped')");
      expect(check(mutate(sft, "--gradient_accumulation_steps 4", "--gradient_accumulation_steps 0"))).toContain("--gradient_accumulation_steps 0: not a positive int");
      expect(check(mutate(sft, /--max_length \d+/, "--max_length 4096")).join("\n")).toMatch(/--max_length is 4096, below 6256: bfd packing discards/);
      expect(check(sft, exported("trl-sft", 300, 0))).toContain("--dataset_test_split test is not a split of the dataset card (sft.py reads it when eval_strategy is not no)");
      expect(trlSftGlobalBatch(mutate(sft, "--gradient_accumulation_steps 4", "--gradient_accumulation_steps 2"))).toBe(16);
    });

    it("verl sft_trainer", () => {
      const sft = command("verl-sft", 1500, 120);
      const splits = exported("verl-sft", 1500, 120);
      const check = (broken: string, on = splits) => checkSftLaunch("verl-sft", broken, on);
      expect(check(sft)).toEqual([]);
      expect(check(mutate(sft, "data.train_batch_size=", "data.train_batchsize="))).toContain("data.train_batchsize is not a key of verl's SFT config (Could not override 'data.train_batchsize': key not in struct)");
      expect(check(mutate(sft, /model\.path="[^"]*"/, ""))).toContain('model.path is not set (verl\'s default is "~/models/deepseek-llm-7b-chat")');
      expect(check(mutate(sft, "data.train_files=train.parquet", "data.train_files=train.jsonl"))).toContain("data.train_files=train.jsonl is not a file of the export");
      expect(check(mutate(sft, "data.train_batch_size=32", "data.train_batch_size=12"))).toContain("data.train_batch_size=12 does not divide by the 8 data-parallel ranks: each takes 1 rows, a global batch of 8");
      expect(check(mutate(sft, "data.train_batch_size=32", "data.train_batch_size=4"))).toContain("data.train_batch_size=4 is below the 8 data-parallel ranks: each rank's dataloader would get batch_size 0");
      expect(check(sft, exported("verl-sft", 20, 120))).toContain("data.train_batch_size=32 exceeds the 20 rows of train.parquet: the train dataloader (drop_last) has no batch, and fit divides by its length");
      expect(check(sft, exported("verl-sft", 1500, 20)).join("\n")).toMatch(/data.val_files=test.parquet has 20 rows, less than one global batch \(32\)/);
      expect(check(mutate(sft, "data.max_token_len_per_gpu=8192", "data.max_token_len_per_gpu=4096")).join("\n")).toMatch(/max_token_len must be greater than the sequence length/);
      expect(check(`${sft} data.use_dynamic_bsz=false data.micro_batch_size_per_gpu=3`).join("\n")).toMatch(/data size must be divisible by force_group_size \* micro_batch_size_per_gpu: 4 rows per rank/);
      expect(check(`${sft} data.pad_mode=left`)).toContain("data.pad_mode left: invalid choice (choose from 'right', 'no_padding')");
      expect(check(mutate(sft, "optim.lr=1e-5", "optim.lr=fast"))).toContain("optim.lr fast: invalid float value (type=float in verl-0.9.0-sft-keys.txt)");
      expect(check(mutate(sft, 'trainer.logger="[console]"', "trainer.logger=console"))).toContain("trainer.logger console: not a list (its default is one)");
      expect(check(mutate(sft, ' trainer.logger="[console]"', ""))).toContain("trainer.logger includes wandb: Tracking calls wandb.init, which needs a Weights & Biases account and key");
      expect(check(mutate(sft, /data\.max_length=\d+/, "data.max_length=4096")).join("\n")).toMatch(/data.max_length is 4096, below 6256: data.truncation=error raises on a longer row/);
      expect(check(`${sft} trainer.test_freq=after_each_epoch`)).toEqual([]);
      expect(check(`${sft} trainer.test_freq=often`)).toContain("trainer.test_freq often: invalid int value (type=int in verl-0.9.0-sft-keys.txt)");
      const off = command("verl-sft", 1500, 0);
      expect(checkSftLaunch("verl-sft", `${off} trainer.test_freq=10`, exported("verl-sft", 1500, 0))).toContain("trainer.test_freq=10 without data.val_files: fit would iterate a validation dataloader that is None");
    });
  });

  it("the example of 100 train and 10 test rows", () => {
    expect(plan("chat-jsonl", 100, 10).settings).toMatchObject({ trainBatchSize: 32, microTrainBatchSize: 1, gradientAccumulation: 4, maxLen: 8192 });
    expect(plan("trl-sft", 100, 10).settings).toMatchObject({ perDeviceTrainBatchSize: 1, gradientAccumulationSteps: 4, processes: 8, maxLength: 8192 });
    expect(plan("verl-sft", 100, 10).settings).toMatchObject({ trainBatchSize: 32, maxLength: 8192, maxTokenLenPerGpu: 8192 });
    expect(plan("chat-jsonl", 100, 10).validation).toBe("test");
    expect(plan("trl-sft", 100, 10).validation).toBe("test");
    expect(plan("verl-sft", 100, 10).validation).toBe("off");
  });
});
