import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launchPlan, powerOfTwoAtMost, TRAINING_SET_FORMATS, type TrainingSetFormat } from "../src";
import { checkLaunch, OPENRLHF_OPTIONS, shellWords, TRL_GRPO_FIELDS, TRL_PRM_OPTIONS, VERL_KEYS, type ExportedSplits } from "./trainer-launch";

/** The files an export of `format` writes for these split sizes, and the splits its dataset card lists (non-empty ones). */
function exported(format: TrainingSetFormat, train: number, test: number): ExportedSplits {
  const ext = format === "verl" || format === "trl-prm" ? "parquet" : "jsonl";
  const rows: Record<string, number> = { [`train.${ext}`]: train, [`test.${ext}`]: test };
  const cardSplits: Record<string, string> = {};
  if (train > 0) cardSplits.train = `train.${ext}`;
  if (test > 0) cardSplits.test = `test.${ext}`;
  return { rows, cardSplits };
}

const command = (format: TrainingSetFormat, train: number, test: number) => {
  const plan = launchPlan({ format, trainRows: train, testRows: test, maxResponseTokens: 3096 });
  if (plan.command === null) throw new Error(`no command for ${format} with ${train}/${test} rows`);
  return plan.command;
};

describe("trainer launch lines", () => {
  it("the vendored key lists are the trainers' (spot checks of what the commands rely on)", () => {
    expect(VERL_KEYS.get("actor_rollout_ref.rollout.name")).toBe("???");
    expect(VERL_KEYS.get("data.train_batch_size")).toBe(1024);
    expect(VERL_KEYS.get("actor_rollout_ref.actor.ppo_mini_batch_size")).toBe(256);
    expect(VERL_KEYS.get("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")).toBeNull();
    expect(VERL_KEYS.size).toBeGreaterThan(500);
    expect(OPENRLHF_OPTIONS.get("--rollout.batch_size")).toEqual({ kind: "value", default: "1024" });
    expect(OPENRLHF_OPTIONS.get("--actor.eps_clip_low_high")?.kind).toBe("nargs=2");
    expect(OPENRLHF_OPTIONS.get("--data.apply_chat_template")?.kind).toBe("flag");
    expect(TRL_PRM_OPTIONS.get("--step_separator")).toBe("value");
    expect(TRL_PRM_OPTIONS.get("--dataset_test_split")).toBe("value");
    expect(TRL_GRPO_FIELDS.has("epsilon_high")).toBe(true);
  });

  it("batch sizes are the largest power of two within the split and the trainer's default", () => {
    expect([0, 1, 2, 3, 1000, 1024, 5000].map((n) => powerOfTwoAtMost(n, 1024))).toEqual([0, 1, 2, 2, 512, 1024, 1024]);
    const plan = launchPlan({ format: "verl", trainRows: 300, testRows: 40, maxResponseTokens: 3096 });
    expect(plan.settings).toMatchObject({ trainBatchSize: 256, ppoMiniBatchSize: 256, gpus: 8 });
    expect(launchPlan({ format: "verl", trainRows: 100, testRows: 10, maxResponseTokens: 3096 }).settings).toMatchObject({ trainBatchSize: 64, ppoMiniBatchSize: 64 });
    expect(launchPlan({ format: "openrlhf", trainRows: 20, testRows: 0, maxResponseTokens: 3096 }).settings).toMatchObject({ rolloutBatchSize: 16, trainBatchSize: 64 });
  });

  const sizes: Array<[number, number]> = [
    [1500, 120],
    [300, 40],
    [1025, 1],
    [100, 0],
    [5, 0],
    [2, 3],
  ];
  for (const format of TRAINING_SET_FORMATS) {
    it(`${format}: every generated command passes the trainer's checks, with and without a test split`, () => {
      for (const [train, test] of sizes) {
        const plan = launchPlan({ format, trainRows: train, testRows: test, maxResponseTokens: 3096 });
        expect(plan.command, `${train}/${test}`).not.toBeNull();
        expect(checkLaunch(format, plan.command!, exported(format, train, test)), `${train}/${test} rows`).toEqual([]);
        expect(plan.validation).toBe(test > 0 ? "test" : "off");
      }
    });
  }

  it("every GRPO command lets a rollout run to the judge's generation cap: 3096 tokens by default (the paper's), or the export's setting", () => {
    const limits = (maxResponseTokens: number) => ({
      verl: launchPlan({ format: "verl", trainRows: 300, testRows: 40, maxResponseTokens }).command!,
      openrlhf: launchPlan({ format: "openrlhf", trainRows: 300, testRows: 40, maxResponseTokens }).command!,
      trl: launchPlan({ format: "trl", trainRows: 300, testRows: 40, maxResponseTokens }).command!,
    });
    const paper = limits(3096);
    expect(paper.verl).toContain("data.max_response_length=3096");
    expect(paper.openrlhf).toContain("--rollout.max_new_tokens 3096");
    expect(paper.trl).toContain("max_completion_length=3096");
    const longer = limits(8192);
    expect([longer.verl, longer.openrlhf, longer.trl].every((text) => text.includes("8192"))).toBe(true);
    // The trainers' own defaults would cut a rationale before its verdict.
    expect(VERL_KEYS.get("data.max_response_length")).toBe(512);
    expect(OPENRLHF_OPTIONS.get("--rollout.max_new_tokens")).toEqual({ kind: "value", default: "None" });
    expect(TRL_GRPO_FIELDS.has("max_completion_length")).toBe(true);
  });

  it("a train split too small for one batch gets no command and says why", () => {
    const plan = launchPlan({ format: "verl", trainRows: 1, testRows: 4, maxResponseTokens: 3096 });
    expect(plan.command).toBeNull();
    expect(plan.notes[0]).toMatch(/train split has 1 rows.*at least 2/);
    expect(launchPlan({ format: "trl-prm", trainRows: 0, testRows: 4, maxResponseTokens: 3096 }).command).toBeNull();
    expect(launchPlan({ format: "trl-prm", trainRows: 1, testRows: 0, maxResponseTokens: 3096 }).command).not.toBeNull();
  });

  describe("the checks fail on a broken command", () => {
    const verl = command("verl", 1500, 120);
    const splits = exported("verl", 1500, 120);
    it("verl without actor_rollout_ref.rollout.name", () => {
      const broken = verl.replace("actor_rollout_ref.rollout.name=vllm ", "");
      expect(broken).not.toBe(verl);
      expect(checkLaunch("verl", broken, splits)).toContain("actor_rollout_ref.rollout.name is mandatory (??? in verl's config) and not set");
    });
    it("verl with a misspelled key", () => {
      expect(checkLaunch("verl", verl.replace("data.train_batch_size=", "data.train_batchsize="), splits)).toContain("data.train_batchsize is not a key of verl's config");
    });
    it("verl with a train batch larger than the split", () => {
      expect(checkLaunch("verl", verl, exported("verl", 1000, 120)).join("\n")).toMatch(/data.train_batch_size=1024 exceeds the 1000 rows/);
      expect(checkLaunch("verl", verl.replace("data.train_batch_size=1024", "data.train_batch_size=2048"), splits).join("\n")).toMatch(/exceeds the 1500 rows/);
    });
    it("verl without the train batch size falls back to 1024, more than a small split", () => {
      const small = command("verl", 300, 40).replace(/data\.train_batch_size=\d+ /, "");
      expect(checkLaunch("verl", small, exported("verl", 300, 40)).join("\n")).toMatch(/data.train_batch_size=1024 exceeds the 300 rows/);
    });
    it("verl validating on an empty test split, or on the train file", () => {
      expect(checkLaunch("verl", verl, exported("verl", 1500, 0))).toContain('data.val_files=test.parquet is empty: verl asserts "Validation dataloader is empty!"');
      const off = command("verl", 1500, 0);
      expect(off).toContain("data.val_files=train.parquet");
      expect(checkLaunch("verl", off.replace("trainer.val_before_train=False ", ""), exported("verl", 1500, 0)).join("\n")).toMatch(/validation runs on the train file/);
    });
    it("verl without micro-batch sizes or with a mini-batch larger than the train batch", () => {
      expect(checkLaunch("verl", verl.replace(/actor_rollout_ref\.rollout\.log_prob_micro_batch_size_per_gpu=\d+/, ""), splits)).toContain(
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu is not set",
      );
      const small = command("verl", 100, 10).replace(/ppo_mini_batch_size=\d+/, "ppo_mini_batch_size=256");
      expect(checkLaunch("verl", small, exported("verl", 100, 10))).toContain("train_batch_size (64) must be >= actor.ppo_mini_batch_size (256)");
    });
    it("OpenRLHF with a misspelled flag, a rollout batch larger than the split, or evaluation on an empty file", () => {
      const openrlhf = command("openrlhf", 1500, 120);
      const ok = exported("openrlhf", 1500, 120);
      expect(checkLaunch("openrlhf", openrlhf, ok)).toEqual([]);
      expect(checkLaunch("openrlhf", openrlhf.replace("--data.label_key", "--data.labels_key"), ok)).toContain("--data.labels_key is not an option of train_ppo_ray");
      expect(checkLaunch("openrlhf", openrlhf, exported("openrlhf", 500, 120))).toContain("--rollout.batch_size 1024 exceeds the 500 prompts of the train file");
      expect(checkLaunch("openrlhf", openrlhf, exported("openrlhf", 1500, 0))).toContain("--eval.dataset test.jsonl is empty");
      expect(checkLaunch("openrlhf", openrlhf.replace(/--rollout\.n_samples_per_prompt \d+/, ""), ok)).toContain("a group baseline estimator requires n_samples_per_prompt > 1");
    });
    it("TRL PRM with a misspelled option or a test split the card does not list", () => {
      const prm = command("trl-prm", 300, 40);
      expect(checkLaunch("trl-prm", prm, exported("trl-prm", 300, 40))).toEqual([]);
      expect(checkLaunch("trl-prm", prm.replace("--dataset_name", "--dataset_nam"), exported("trl-prm", 300, 40))).toContain("--dataset_nam is not an option of examples/scripts/prm.py");
      expect(checkLaunch("trl-prm", prm, exported("trl-prm", 300, 0))).toContain("--dataset_test_split test is not a split of the dataset card");
    });
    it("TRL GRPO with a misspelled GRPOConfig field or an empty test file", () => {
      const grpo = command("trl", 300, 40);
      expect(checkLaunch("trl", grpo.replace("epsilon_high=", "epsilon_hi="), exported("trl", 300, 40))).toContain("epsilon_hi is not a GRPOConfig field");
      expect(checkLaunch("trl", grpo, exported("trl", 300, 0))).toContain("data_files names the empty test.jsonl (split test)");
    });
  });

  it("shell words: quotes group, line continuations join", () => {
    expect(shellWords('a b=1 \\\n  c="${X:?set X to y}" d')).toEqual(["a", "b=1", "c=${X:?set X to y}", "d"]);
  });

  it("docs/EXPORTS.md shows the commands exactly as generated (1,500 train and 120 test rows; verl also with an empty test split)", () => {
    const docs = readFileSync(path.join(import.meta.dirname, "../../../docs/EXPORTS.md"), "utf8");
    for (const format of TRAINING_SET_FORMATS) expect(docs, format).toContain(command(format, 1500, 120));
    expect(docs).toContain(command("verl", 1500, 0));
  });
});
