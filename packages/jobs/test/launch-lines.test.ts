import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launchPlan, minimumTrainRows, powerOfTwoAtMost, promptTokenBound, PROMPT_TOKEN_MARGIN, requirementsTxt, TRAINER_RELEASES, TRAINING_SET_FORMATS, type LaunchInput, type TrainingSetFormat } from "../src";
import {
  checkLaunch,
  fixtureHeader,
  fixtureRelease,
  OPENRLHF_OPTIONS,
  OPENRLHF_PRM_OPTIONS,
  shellWords,
  TRL_GRPO_FIELDS,
  TRL_PRM_OPTIONS,
  VERL_CHOICES,
  VERL_KEYS,
  type ExportedSplits,
} from "./trainer-launch";

/** The longest prompt of the exports these tests (and docs/EXPORTS.md) show, in UTF-8 bytes. */
const PROMPT_BYTES = 6000;
const RESPONSE_TOKENS = 3096;

const extension = (format: TrainingSetFormat) => (format === "verl" || format === "trl-prm" ? "parquet" : "jsonl");

/** The files an export of `format` writes for these split sizes, the splits its dataset card lists (non-empty ones), and its lengths. */
function exported(format: TrainingSetFormat, train: number, test: number, promptBytes = PROMPT_BYTES): ExportedSplits {
  const ext = extension(format);
  const rows: Record<string, number> = { [`train.${ext}`]: train, [`test.${ext}`]: test };
  const cardSplits: Record<string, string> = {};
  if (train > 0) cardSplits.train = `train.${ext}`;
  if (test > 0) cardSplits.test = `test.${ext}`;
  return { rows, cardSplits, lengths: { promptTokens: promptTokenBound(promptBytes), responseTokens: RESPONSE_TOKENS } };
}

const plan = (format: TrainingSetFormat, train: number, test: number, more: Partial<LaunchInput> = {}) =>
  launchPlan({ format, trainRows: train, testRows: test, maxResponseTokens: RESPONSE_TOKENS, maxPromptBytes: PROMPT_BYTES, ...more });

const command = (format: TrainingSetFormat, train: number, test: number) => {
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

describe("trainer launch lines", () => {
  it("the vendored definitions are the releases' own (spot checks of what the commands rely on)", () => {
    expect(VERL_KEYS.get("actor_rollout_ref.rollout.name")).toBe("???");
    expect(VERL_KEYS.get("data.train_batch_size")).toBe(1024);
    expect(VERL_KEYS.get("actor_rollout_ref.actor.ppo_mini_batch_size")).toBe(256);
    expect(VERL_KEYS.get("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")).toBeNull();
    expect(VERL_KEYS.get("reward.custom_reward_function.name")).toBe("compute_score");
    expect(VERL_KEYS.size).toBeGreaterThan(800);
    expect(VERL_CHOICES.get("actor_rollout_ref.rollout.name")).toEqual(["vllm", "sglang", "trtllm"]);
    expect(VERL_CHOICES.get("algorithm.adv_estimator")).toContain("grpo");
    expect(OPENRLHF_OPTIONS.get("--rollout.batch_size")).toEqual({ kind: "value", type: "int", choices: null, default: "1024" });
    expect(OPENRLHF_OPTIONS.get("--actor.eps_clip_low_high")).toMatchObject({ kind: "nargs=2", type: "float" });
    expect(OPENRLHF_OPTIONS.get("--data.apply_chat_template")?.kind).toBe("flag");
    expect(OPENRLHF_OPTIONS.get("--algo.advantage.estimator")?.choices).toEqual(["gae", "reinforce", "rloo", "reinforce_baseline", "group_norm", "dr_grpo"]);
    // The options defined in a loop over actor and critic are there too.
    expect(OPENRLHF_OPTIONS.get("--actor.adam.lr")).toMatchObject({ type: "float", default: "1e-06" });
    expect(OPENRLHF_OPTIONS.get("--critic.adam.lr")).toMatchObject({ type: "float", default: "9e-06" });
    // A reference model exists by default (init_coef > 0) and no vLLM engine does: the command must place both.
    expect(OPENRLHF_OPTIONS.get("--algo.kl.init_coef")?.default).toBe("0.01");
    expect(OPENRLHF_OPTIONS.get("--vllm.num_engines")?.default).toBe("None");
    expect(OPENRLHF_OPTIONS.get("--ref.num_gpus_per_node")?.default).toBe("8");
    expect(OPENRLHF_PRM_OPTIONS.get("--input_key")?.default).toBe("'input'");
    expect(OPENRLHF_PRM_OPTIONS.get("--label_key")?.default).toBe("'label'");
    expect(OPENRLHF_PRM_OPTIONS.get("--placeholder_token")?.default).toBe("None");
    expect(OPENRLHF_PRM_OPTIONS.get("--reward_tokens")?.kind).toBe("nargs=*");
    expect(OPENRLHF_PRM_OPTIONS.get("--eval_split")?.default).toBe("'test'");
    expect(TRL_PRM_OPTIONS.get("--step_separator")).toMatchObject({ kind: "value", type: "str", class: "PRMConfig" });
    expect(TRL_PRM_OPTIONS.get("--max_length")).toMatchObject({ type: "int", default: "1024" });
    expect(TRL_PRM_OPTIONS.get("--dtype")?.choices).toEqual(["auto", "bfloat16", "float16", "float32"]);
    expect(TRL_PRM_OPTIONS.get("--no_disable_dropout")?.kind).toBe("flag");
    expect(TRL_GRPO_FIELDS.get("epsilon_high")).toMatchObject({ type: "float", class: "GRPOConfig" });
    expect(TRL_GRPO_FIELDS.get("num_generations")).toMatchObject({ type: "int", default: "8" });
  });

  it("every format's fixtures name one release, the one the export pins, and its requirements.txt is exact pins", () => {
    const pin = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[0-9][0-9A-Za-z.+!-]*$/;
    const packages: Record<string, string> = { verl: "verl", OpenRLHF: "openrlhf", TRL: "trl" };
    for (const format of TRAINING_SET_FORMATS) {
      const release = TRAINER_RELEASES[format];
      expect(fixtureRelease(format), format).toEqual({ trainer: release.trainer, release: release.release, tag: release.tag, commit: release.sourceCommit });
      expect(fixtureHeader(format).join("\n"), format).toContain(`github.com/${release.repository}`);
      const text = requirementsTxt(release);
      expect(text.endsWith("\n")).toBe(true);
      const lines = text.slice(0, -1).split("\n");
      for (const line of lines) expect(line, `${format}: ${line}`).toMatch(pin);
      expect(lines[0]).toBe(`${packages[release.trainer]}==${release.release}`);
      expect(new Set(lines.map((line) => line.split("==")[0])).size).toBe(lines.length);
    }
    expect(TRAINER_RELEASES.verl.repository).toBe("verl-project/verl");
    expect(TRAINER_RELEASES["trl-prm"].release).toBe("1.9.0");
    expect(TRAINER_RELEASES["openrlhf-prm"].release).toBe("0.9.5");
  });

  it("batch sizes are the largest power of two within the split and the trainer's default", () => {
    expect([0, 1, 2, 3, 1000, 1024, 5000].map((n) => powerOfTwoAtMost(n, 1024))).toEqual([0, 1, 2, 2, 512, 1024, 1024]);
    expect(plan("verl", 300, 40).settings).toMatchObject({ trainBatchSize: 256, ppoMiniBatchSize: 256, gpus: 8 });
    expect(plan("verl", 100, 10).settings).toMatchObject({ trainBatchSize: 64, ppoMiniBatchSize: 64 });
    expect(plan("openrlhf", 20, 0).settings).toMatchObject({ rolloutBatchSize: 16, trainBatchSize: 64 });
    expect(plan("openrlhf-prm", 20, 0).settings).toMatchObject({ trainBatchSize: 16, microTrainBatchSize: 1 });
    expect(plan("openrlhf-prm", 1500, 120).settings).toMatchObject({ trainBatchSize: 128 });
  });

  const sizes: Array<[number, number]> = [
    [1500, 120],
    [300, 40],
    [1025, 1],
    [100, 0],
    [9, 8],
    [8, 0],
    [5, 0],
    [2, 3],
  ];
  for (const format of TRAINING_SET_FORMATS) {
    it(`${format}: every generated command passes the release's checks, with and without a test split`, () => {
      for (const [train, test] of sizes) {
        const made = plan(format, train, test);
        if (train < minimumTrainRows(format)) {
          expect(made.command, `${train}/${test}`).toBeNull();
          continue;
        }
        expect(made.command, `${train}/${test}`).not.toBeNull();
        expect(checkLaunch(format, made.command!, exported(format, train, test)), `${train}/${test} rows`).toEqual([]);
        // train_prm evaluates nothing on fewer solutions than GPUs, so its command leaves such a test split out.
        expect(made.validation).toBe(test >= (format === "openrlhf-prm" ? 8 : 1) ? "test" : "off");
      }
    });
  }

  it("OpenRLHF runs on one node of 8 GPUs: vLLM engines set, actor, reference model and engines colocated", () => {
    const words = shellWords(command("openrlhf", 1500, 120));
    const after = (flag: string) => words[words.indexOf(flag) + 1];
    expect(after("--vllm.num_engines")).toBe("8");
    expect(after("--vllm.tensor_parallel_size")).toBe("1");
    expect(words).toContain("--train.colocate_all");
    expect(words).not.toContain("--algo.kl.init_coef");
    const splits = exported("openrlhf", 1500, 120);
    expect(checkLaunch("openrlhf", command("openrlhf", 1500, 120), splits)).toEqual([]);
    // Without colocation the default KL coefficient's reference model needs 8 GPUs of its own, and the engines 8 more.
    expect(checkLaunch("openrlhf", mutate(command("openrlhf", 1500, 120), "--train.colocate_all ", ""), splits)).toContain("the actor, reference model and vLLM engines need 24 GPUs, more than the node's 8");
  });

  it("the length limits come from the export: the longest prompt's bound plus the judge's generation cap", () => {
    const bound = PROMPT_BYTES + PROMPT_TOKEN_MARGIN;
    expect(promptTokenBound(PROMPT_BYTES)).toBe(bound);
    const words = (format: TrainingSetFormat, more: Partial<LaunchInput> = {}) => shellWords(plan(format, 300, 40, more).command!);
    const after = (list: string[], flag: string) => list[list.indexOf(flag) + 1];
    const openrlhf = words("openrlhf");
    expect(after(openrlhf, "--data.max_len")).toBe(String(bound + RESPONSE_TOKENS));
    expect(after(openrlhf, "--rollout.max_new_tokens")).toBe(String(RESPONSE_TOKENS));
    expect(words("verl")).toEqual(expect.arrayContaining([`data.max_prompt_length=${bound}`, `data.max_response_length=${RESPONSE_TOKENS}`]));
    expect(after(words("trl-prm"), "--max_length")).toBe(String(bound));
    expect(after(words("openrlhf-prm"), "--max_len")).toBe(String(bound));
    expect(plan("trl", 300, 40).command).toContain(`max_completion_length=${RESPONSE_TOKENS}`);
    const longer = words("openrlhf", { maxPromptBytes: 20_000, maxResponseTokens: 8192 });
    expect(after(longer, "--data.max_len")).toBe(String(20_000 + PROMPT_TOKEN_MARGIN + 8192));
    expect(after(longer, "--rollout.max_new_tokens")).toBe("8192");
    // The releases' own defaults would cut a rationale before its verdict, or truncate the prompt.
    expect(VERL_KEYS.get("data.max_response_length")).toBe(512);
    expect(OPENRLHF_OPTIONS.get("--data.max_len")?.default).toBe("2048");
    expect(OPENRLHF_OPTIONS.get("--rollout.max_new_tokens")?.default).toBe("None");
    expect(TRL_GRPO_FIELDS.get("max_completion_length")?.default).toBe("256");
    expect(plan("openrlhf", 300, 40).notes.join("\n")).toContain(`the longest prompt written is ${PROMPT_BYTES} bytes of UTF-8`);
  });

  it("a train split too small for one batch gets no command and says why", () => {
    const small = plan("verl", 1, 4);
    expect(small.command).toBeNull();
    expect(small.notes[0]).toMatch(/train split has 1 rows.*at least 2/);
    expect(plan("trl-prm", 0, 4).command).toBeNull();
    expect(plan("trl-prm", 1, 0).command).not.toBeNull();
    expect(plan("openrlhf-prm", 7, 0).command).toBeNull();
    expect(plan("openrlhf-prm", 7, 0).notes[0]).toMatch(/at least 8 solutions/);
  });

  describe("the checks fail on a wrong flag, a missing required setting and a broken cross-argument rule", () => {
    it("verl", () => {
      const verl = command("verl", 1500, 120);
      const splits = exported("verl", 1500, 120);
      expect(checkLaunch("verl", verl, splits)).toEqual([]);
      const check = (broken: string) => checkLaunch("verl", broken, splits);
      // A key verl does not have, and a mandatory (???) key left out.
      expect(check(mutate(verl, "data.train_batch_size=", "data.train_batchsize="))).toContain("data.train_batchsize is not a key of verl's config (Could not override 'data.train_batchsize': key not in struct)");
      expect(check(mutate(verl, "actor_rollout_ref.rollout.name=vllm ", ""))).toContain("actor_rollout_ref.rollout.name is mandatory (??? in verl's config) and not set");
      // A value of the wrong type, and one outside the release's choices.
      expect(check(mutate(verl, /data\.train_batch_size=\d+/, "data.train_batch_size=many"))).toContain(`data.train_batch_size many: invalid int value (type=int in verl-0.9.0-keys.txt)`);
      expect(check(mutate(verl, "rollout.name=vllm", "rollout.name=vlm")).join("\n")).toMatch(/actor_rollout_ref.rollout.name vlm: invalid choice \(choose from 'vllm', 'sglang', 'trtllm'\)/);
      expect(check(mutate(verl, "adv_estimator=grpo", "adv_estimator=group_norm")).join("\n")).toMatch(/algorithm.adv_estimator group_norm: invalid choice/);
      // Micro-batch sizes: neither, or both spellings.
      expect(check(mutate(verl, /actor_rollout_ref\.rollout\.log_prob_micro_batch_size_per_gpu=\d+/, ""))).toContain(
        "[actor_rollout_ref.rollout] Please set at least one of 'actor_rollout_ref.rollout.log_prob_micro_batch_size' or 'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu'.",
      );
      expect(check(`${verl} actor_rollout_ref.actor.ppo_micro_batch_size=8`).join("\n")).toMatch(/You have set both 'actor_rollout_ref.actor.ppo_micro_batch_size' AND/);
      // Divisibility: the mini-batch × rollout.n over the GPUs, the train batch × rollout.n over the GPUs.
      expect(check(mutate(verl, /ppo_mini_batch_size=\d+/, "ppo_mini_batch_size=3")).join("\n")).toMatch(/Got mini_batch_size=12 and data parallel size 8/);
      expect(check(mutate(verl, "data.train_batch_size=1024", "data.train_batch_size=1023"))).toContain("real_train_batch_size (4092) must be divisible by minimal possible batch size (8)");
      expect(check(mutate(verl, "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.tensor_model_parallel_size=16"))).toContain("rollout world size 16 exceeds the 8 GPUs: no rollout replica");
      // Batches against the split sizes, and validation on an empty file.
      expect(checkLaunch("verl", verl, exported("verl", 1000, 120)).join("\n")).toMatch(/data.train_batch_size=1024 exceeds the 1000 rows/);
      const small = mutate(command("verl", 300, 40), /data\.train_batch_size=\d+ /, "");
      expect(checkLaunch("verl", small, exported("verl", 300, 40)).join("\n")).toMatch(/data.train_batch_size=1024 exceeds the 300 rows/);
      expect(checkLaunch("verl", mutate(command("verl", 100, 10), /ppo_mini_batch_size=\d+/, "ppo_mini_batch_size=256"), exported("verl", 100, 10))).toContain(
        "train_batch_size (64) must be >= actor.ppo_mini_batch_size (256)",
      );
      expect(checkLaunch("verl", verl, exported("verl", 1500, 0))).toContain('data.val_files=test.parquet is empty: verl asserts "Validation dataloader is empty!"');
      const off = command("verl", 1500, 0);
      expect(off).toContain("data.val_files=train.parquet");
      expect(checkLaunch("verl", mutate(off, "trainer.val_before_train=False ", ""), exported("verl", 1500, 0)).join("\n")).toMatch(/validation runs on the train file/);
      // A prompt limit below the export's longest prompt.
      expect(check(mutate(verl, /data\.max_prompt_length=\d+/, "data.max_prompt_length=512")).join("\n")).toMatch(/data.max_prompt_length is 512, below 6256/);
      expect(check(mutate(verl, "reward.custom_reward_function.path=reward.py ", ""))).toContain("reward.custom_reward_function.path is not the export's reward.py");
    });

    it("OpenRLHF GRPO", () => {
      const openrlhf = command("openrlhf", 1500, 120);
      const splits = exported("openrlhf", 1500, 120);
      const check = (broken: string) => checkLaunch("openrlhf", broken, splits);
      expect(check(openrlhf)).toEqual([]);
      expect(check(mutate(openrlhf, "--data.label_key", "--data.labels_key"))).toContain("--data.labels_key is not an option of train_ppo_ray");
      expect(check(mutate(openrlhf, "--vllm.num_engines 8 ", ""))).toContain("--vllm.num_engines is not set: train_ppo_ray generates rollouts with vLLM engines only");
      expect(check(mutate(openrlhf, "--vllm.num_engines 8", "--vllm.num_engines 4"))).toContain("actor_num_nodes * actor_num_gpus_per_node must be equal to vllm_num_engines * vllm_tensor_parallel_size, got 8 and 4");
      expect(check(mutate(openrlhf, "--ref.num_gpus_per_node 8", "--ref.num_gpus_per_node 4"))).toContain("num_nodes and num_gpus_per_node must be the same when colocate actor and ref model.");
      expect(check(mutate(openrlhf, "--algo.advantage.estimator group_norm", "--algo.advantage.estimator grpo"))).toContain(
        "--algo.advantage.estimator grpo: invalid choice (choose from 'gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo')",
      );
      expect(check(mutate(openrlhf, /--rollout\.batch_size \d+/, "--rollout.batch_size 1e3"))).toContain("--rollout.batch_size 1e3: invalid int value (type=int in train_ppo_ray)");
      expect(check(mutate(openrlhf, "--actor.eps_clip_low_high 0.2 0.28", "--actor.eps_clip_low_high 0.2"))).toContain("--actor.eps_clip_low_high: expected 2 arguments");
      expect(check(mutate(openrlhf, /--rollout\.n_samples_per_prompt \d+ /, ""))).toContain("group_norm requires n_samples_per_prompt > 1");
      expect(check(mutate(openrlhf, /--data\.max_len \d+/, "--data.max_len 4096")).join("\n")).toMatch(/--data.max_len is 4096, below 9352/);
      expect(check(mutate(openrlhf, "--reward.remote_url reward_func.py ", "")).join("\n")).toMatch(/`--eval_dataset` requires either `--remote_rm_url`/);
      expect(checkLaunch("openrlhf", openrlhf, exported("openrlhf", 500, 120))).toContain("--rollout.batch_size 1024 exceeds the 500 prompts of the train file");
      expect(checkLaunch("openrlhf", openrlhf, exported("openrlhf", 1500, 0))).toContain("--eval.dataset test.jsonl is empty");
    });

    it("OpenRLHF PRM", () => {
      const prm = command("openrlhf-prm", 1500, 120);
      const splits = exported("openrlhf-prm", 1500, 120);
      const check = (broken: string) => checkLaunch("openrlhf-prm", broken, splits);
      expect(check(prm)).toEqual([]);
      expect(check(mutate(prm, "--placeholder_token", "--placeholder"))).toContain("--placeholder is not an option of train_prm");
      expect(check(mutate(prm, "--placeholder_token ки ", ""))).toContain('--placeholder_token is not set: convert_token_to_id(None) raises "token should be int or str"');
      expect(check(mutate(prm, "--placeholder_token ки", "--placeholder_token <step>"))).toContain("--placeholder_token <step> is not the placeholder the rows hold (ки)");
      expect(check(mutate(prm, "--reward_tokens + -", "--reward_tokens +"))).toContain("label should be in reward tokens [+], got -");
      expect(check(mutate(prm, " --eval_split train", ""))).toContain('--eval_split test: a JSONL file\'s only split is train (the default "test" leaves a DatasetDict, which has no .select)');
      expect(check(mutate(prm, "--train_batch_size 128", "--train_batch_size 12"))).toContain("--train_batch_size 12 must be a positive multiple of --micro_train_batch_size 1 × 8 GPUs (DeepSpeed's gradient accumulation)");
      expect(check(`${prm} --param_dtype fp32`)).toContain("--param_dtype fp32: invalid choice (choose from 'bf16', 'fp16')");
      expect(check(mutate(prm, /--max_len \d+/, "--max_len 2048")).join("\n")).toMatch(/--max_len is 2048, below 6256/);
      expect(checkLaunch("openrlhf-prm", prm, exported("openrlhf-prm", 100, 120)).join("\n")).toMatch(/--train_batch_size 128 exceeds the 100 rows of train.jsonl/);
      expect(checkLaunch("openrlhf-prm", prm, exported("openrlhf-prm", 1500, 5)).join("\n")).toMatch(/has 5 rows, fewer than the 8 GPUs/);
    });

    it("TRL PRM", () => {
      const prm = command("trl-prm", 300, 40);
      const splits = exported("trl-prm", 300, 40);
      const check = (broken: string) => checkLaunch("trl-prm", broken, splits);
      expect(check(prm)).toEqual([]);
      expect(check(mutate(prm, "--dataset_name", "--dataset_nam"))).toContain("--dataset_nam is not an option of examples/scripts/prm.py");
      expect(check(mutate(prm, /--model_name_or_path "[^"]*" /, ""))).toContain("--model_name_or_path is not set");
      expect(check(mutate(prm, /--max_length \d+/, "--max_length long"))).toContain("--max_length long: invalid int value (type=int in examples/scripts/prm.py)");
      expect(check(`${prm} --dtype bf16`)).toContain("--dtype bf16: invalid choice (choose from 'auto', 'bfloat16', 'float16', 'float32')");
      expect(check(mutate(prm, "at tag v1.9.0", "at main"))).toContain("the command's TRL checkout is not named at tag v1.9.0, the release its options were checked against");
      expect(check(mutate(prm, /--max_length \d+/, "--max_length 1024")).join("\n")).toMatch(/--max_length is 1024, below 6256/);
      expect(checkLaunch("trl-prm", prm, exported("trl-prm", 300, 0))).toContain("--dataset_test_split test is not a split of the dataset card");
    });

    it("TRL GRPO", () => {
      const grpo = command("trl", 300, 40);
      const splits = exported("trl", 300, 40);
      const check = (broken: string) => checkLaunch("trl", broken, splits);
      expect(check(grpo)).toEqual([]);
      expect(check(mutate(grpo, "epsilon_high=", "epsilon_hi="))).toContain("GRPOConfig.__init__() got an unexpected keyword argument 'epsilon_hi'");
      expect(check(mutate(grpo, "num_generations=4", "num_generations=3"))).toContain("generation_batch_size (8) must be divisible by num_generations (3), on 1 process(es).");
      expect(check(mutate(grpo, "num_generations=4", "num_generations=1")).join("\n")).toMatch(/GRPO requires at least 2 generations per prompt/);
      expect(check(mutate(grpo, `max_completion_length=${RESPONSE_TOKENS}`, 'max_completion_length="long"'))).toContain('max_completion_length="long" is not of type int (GRPOConfig.max_completion_length: int)');
      expect(check(mutate(grpo, `max_completion_length=${RESPONSE_TOKENS}`, "max_completion_length=256")).join("\n")).toMatch(/max_completion_length is 256, below 3096/);
      expect(check(mutate(grpo, '    eval_dataset=data["test"],\n', ""))).toContain("eval_strategy is set but no eval_dataset is passed");
      expect(checkLaunch("trl", grpo, exported("trl", 300, 0))).toContain("data_files names the empty test.jsonl (split test)");
    });
  });

  it("shell words: quotes group, line continuations join", () => {
    expect(shellWords('a b=1 \\\n  c="${X:?set X to y}" d')).toEqual(["a", "b=1", "c=${X:?set X to y}", "d"]);
  });

  it("docs/EXPORTS.md shows the commands exactly as generated (1,500 train and 120 test rows, a 6,000-byte longest prompt; verl also with an empty test split) and each format's pins", () => {
    const docs = readFileSync(path.join(import.meta.dirname, "../../../docs/EXPORTS.md"), "utf8");
    for (const format of TRAINING_SET_FORMATS) {
      expect(docs, format).toContain(command(format, 1500, 120));
      const release = TRAINER_RELEASES[format];
      expect(docs, format).toContain(release.sourceCommit);
      expect(docs, format).toContain(`\`${format}\``);
      for (const pin of release.requirements) expect(docs, `${format} ${pin.name}`).toContain(`${pin.name}==${pin.version}`);
    }
    expect(docs).toContain(command("verl", 1500, 0));
  });
});
