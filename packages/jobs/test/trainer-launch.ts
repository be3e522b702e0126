import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Checks a generated launch command against the trainer's own configuration, as
 * vendored under fixtures/trainer-configs (key lists extracted from the trainers'
 * sources; each file's header names the repository, file and commit). Every key
 * or flag the command uses must exist there, mandatory keys must be set, and the
 * batch-size and validation rules each trainer enforces at start-up (restated
 * here from its source) must hold for the split sizes of the export.
 */

const FIXTURES = path.join(import.meta.dirname, "fixtures", "trainer-configs");

function dataLines(file: string): string[][] {
  return readFileSync(path.join(FIXTURES, file), "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => line.split("\t"));
}

/** verl: dotted key → default (parsed JSON). */
export const VERL_KEYS = new Map(dataLines("verl-0.8.0.dev-keys.txt").map(([key, value]) => [key!, JSON.parse(value!) as unknown]));
/** OpenRLHF: option → {kind, default (Python source)}. */
export const OPENRLHF_OPTIONS = new Map(dataLines("openrlhf-0.11.0-train_ppo_ray-args.txt").map(([name, kind, value]) => [name!, { kind: kind!, default: value! }]));
/** TRL examples/scripts/prm.py: option → kind ("bool" or "value"). */
export const TRL_PRM_OPTIONS = new Map(dataLines("trl-1.10.0.dev0-prm-script-args.txt").map(([name, kind]) => [name!, kind!]));
/** TRL GRPOConfig keyword arguments. */
export const TRL_GRPO_FIELDS = new Set(dataLines("trl-1.10.0.dev0-grpo-config-fields.txt").map(([name]) => name!));

/** What the export wrote: rows per file, and the splits its dataset card lists. */
export interface ExportedSplits {
  rows: Record<string, number>;
  cardSplits: Record<string, string>;
}

/** Shell words of a command: `\`-newline continues a line, double quotes group (their `${…}` kept as written). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === "\\" && command[i + 1] === "\n") {
      i += 1;
      continue;
    }
    if (ch === '"') {
      const end = command.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unbalanced quote in: ${command}`);
      current = (current ?? "") + command.slice(i + 1, end);
      i = end;
      continue;
    }
    if (/\s/.test(ch)) {
      if (current !== null) words.push(current);
      current = null;
      continue;
    }
    current = (current ?? "") + ch;
  }
  if (current !== null) words.push(current);
  return words;
}

const isPlaceholder = (value: string) => value.startsWith("${") && value.includes(":?");

function expectPrefix(words: string[], prefix: string[], problems: string[]): string[] {
  if (prefix.some((word, i) => words[i] !== word)) {
    problems.push(`the command does not start with "${prefix.join(" ")}"`);
    return [];
  }
  return words.slice(prefix.length);
}

/** verl's main_ppo: Hydra overrides `key=value`. */
export function checkVerlCommand(command: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const set = new Map<string, string>();
  for (const word of expectPrefix(shellWords(command), ["python3", "-m", "verl.trainer.main_ppo"], problems)) {
    const eq = word.indexOf("=");
    if (eq < 1) {
      problems.push(`"${word}" is not a key=value override`);
      continue;
    }
    const key = word.slice(0, eq);
    if (!VERL_KEYS.has(key)) problems.push(`${key} is not a key of verl's config`);
    else if (set.has(key)) problems.push(`${key} is set twice`);
    set.set(key, word.slice(eq + 1));
  }
  const value = (key: string): unknown => (set.has(key) ? set.get(key) : VERL_KEYS.get(key));
  const int = (key: string) => Number(value(key));
  for (const [key, fallback] of VERL_KEYS) {
    if (fallback !== "???" || set.has(key)) continue;
    if (key.startsWith("reward_model.") && String(value("reward_model.enable")).toLowerCase() !== "true") continue;
    problems.push(`${key} is mandatory (??? in verl's config) and not set`);
  }
  if (set.get("actor_rollout_ref.rollout.name") !== undefined && !["vllm", "sglang", "hf"].includes(set.get("actor_rollout_ref.rollout.name")!)) {
    problems.push(`actor_rollout_ref.rollout.name=${set.get("actor_rollout_ref.rollout.name")} is not a rollout engine`);
  }
  for (const key of ["actor_rollout_ref.model.path", "data.max_prompt_length"]) {
    if (!set.has(key)) problems.push(`${key} is not set (verl's default does not fit a judge training set)`);
    else if (!isPlaceholder(set.get(key)!) && !(set.get(key)!.length > 0)) problems.push(`${key} is empty`);
  }
  // Data files: the train file must hold a full batch (drop_last); the validation file must not be empty (asserted even when validation never runs).
  const trainFile = String(value("data.train_files"));
  const valFile = String(value("data.val_files"));
  const trainRows = splits.rows[trainFile];
  const valRows = splits.rows[valFile];
  if (trainRows === undefined) problems.push(`data.train_files=${trainFile} is not a file of the export`);
  if (valRows === undefined) problems.push(`data.val_files=${valFile} is not a file of the export`);
  else if (valRows === 0) problems.push(`data.val_files=${valFile} is empty: verl asserts "Validation dataloader is empty!"`);
  const trainBatch = int("data.train_batch_size");
  if (trainRows !== undefined && !(trainBatch >= 1 && trainBatch <= trainRows)) {
    problems.push(`data.train_batch_size=${trainBatch} exceeds the ${trainRows} rows of ${trainFile}: "Train dataloader is empty!" (drop_last)`);
  }
  const validating = String(value("trainer.val_before_train")).toLowerCase() === "true" || int("trainer.test_freq") > 0;
  if (valFile === trainFile && validating) problems.push(`validation runs on the train file ${trainFile}: set trainer.val_before_train=False and trainer.test_freq=-1 to turn it off`);
  // Batch-size checks of verl/utils/config.py (validate_config), workers/config/actor.py (ActorConfig) and fsdp_workers.py.
  const gpus = int("trainer.n_gpus_per_node") * int("trainer.nnodes");
  const n = int("actor_rollout_ref.rollout.n");
  const mini = int("actor_rollout_ref.actor.ppo_mini_batch_size");
  const dynamic = String(value("actor_rollout_ref.actor.use_dynamic_bsz")).toLowerCase() === "true";
  if (!dynamic) {
    if ((trainBatch * n) % gpus !== 0) problems.push(`real_train_batch_size (${trainBatch} × ${n}) must be divisible by the ${gpus} GPUs`);
    if (trainBatch < mini) problems.push(`train_batch_size (${trainBatch}) must be >= actor.ppo_mini_batch_size (${mini})`);
    const micro = value("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu") ?? value("actor_rollout_ref.actor.ppo_micro_batch_size");
    if (micro === null || micro === undefined) problems.push("actor.ppo_micro_batch_size_per_gpu is not set (no default without use_dynamic_bsz)");
    const normalized = Math.floor((mini * n) / gpus);
    if (!(normalized > 0)) problems.push(`normalized ppo_mini_batch_size (${mini} × ${n} / ${gpus}) must be larger than 0`);
    else if (micro !== null && micro !== undefined && normalized % Number(micro) !== 0) problems.push(`normalized ppo_mini_batch_size ${normalized} must be divisible by ppo_micro_batch_size_per_gpu ${String(micro)}`);
    const logProb = value("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu") ?? value("actor_rollout_ref.rollout.log_prob_micro_batch_size");
    if (logProb === null || logProb === undefined) problems.push("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu is not set");
  }
  if (value("custom_reward_function.path") !== "reward.py") problems.push("custom_reward_function.path is not the export's reward.py");
  return problems;
}

/** OpenRLHF's train_ppo_ray: argparse options. */
export function checkOpenrlhfCommand(command: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const set = new Map<string, string[]>();
  const words = expectPrefix(shellWords(command), ["python3", "-m", "openrlhf.cli.train_ppo_ray"], problems);
  for (let i = 0; i < words.length; i++) {
    const name = words[i]!;
    const option = OPENRLHF_OPTIONS.get(name);
    if (!option) {
      problems.push(`${name} is not an option of train_ppo_ray`);
      continue;
    }
    const count = option.kind === "flag" ? 0 : option.kind === "value" ? 1 : Number(option.kind.slice("nargs=".length));
    const values = words.slice(i + 1, i + 1 + count);
    if (values.length !== count || values.some((v) => v.startsWith("--"))) problems.push(`${name} takes ${count} value(s)`);
    set.set(name, values);
    i += count;
  }
  const value = (name: string): string => set.get(name)?.[0] ?? OPENRLHF_OPTIONS.get(name)?.default ?? "None";
  const int = (name: string) => Number(value(name));
  for (const name of ["--data.prompt_dataset", "--actor.model_name_or_path", "--data.input_key", "--data.label_key"]) {
    if (!set.has(name)) problems.push(`${name} is not set`);
  }
  if (!set.has("--reward.remote_url") && !set.has("--reward.model_name_or_path")) problems.push("no reward: set --reward.remote_url or --reward.model_name_or_path");
  const trainRows = splits.rows[value("--data.prompt_dataset")];
  if (trainRows === undefined) problems.push(`--data.prompt_dataset ${value("--data.prompt_dataset")} is not a file of the export`);
  if (set.has("--eval.dataset")) {
    const rows = splits.rows[value("--eval.dataset")];
    if (rows === undefined) problems.push(`--eval.dataset ${value("--eval.dataset")} is not a file of the export`);
    else if (rows === 0) problems.push(`--eval.dataset ${value("--eval.dataset")} is empty`);
    if (!set.has("--reward.remote_url")) problems.push("--eval.dataset requires --reward.remote_url");
  }
  const n = int("--rollout.n_samples_per_prompt");
  if (["group_norm", "rloo", "reinforce_baseline", "dr_grpo"].includes(value("--algo.advantage.estimator").replaceAll("'", "")) && !(n > 1)) {
    problems.push("a group baseline estimator requires n_samples_per_prompt > 1");
  }
  const rolloutBatch = int("--rollout.batch_size");
  const trainBatch = int("--train.batch_size");
  if (trainRows !== undefined && rolloutBatch > trainRows) problems.push(`--rollout.batch_size ${rolloutBatch} exceeds the ${trainRows} prompts of the train file`);
  if (trainBatch > rolloutBatch * n) problems.push(`--train.batch_size ${trainBatch} exceeds the ${rolloutBatch * n} samples of one rollout batch`);
  const actors = int("--actor.num_nodes") * int("--actor.num_gpus_per_node");
  if (Math.floor((n * rolloutBatch) / int("--rollout.micro_batch_size")) < Math.floor(actors / int("--ds.ring_attn_size") / int("--ds.tensor_parallel_size"))) {
    problems.push("the number of sample batches must be greater than or equal to the effective number of actor processes");
  }
  return problems;
}

/** TRL's examples/scripts/prm.py: HfArgumentParser options. */
export function checkTrlPrmCommand(command: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const all = shellWords(command);
  if (all[0] !== "accelerate" || all[1] !== "launch" || !all[2]?.endsWith("/examples/scripts/prm.py")) {
    problems.push("the command does not run TRL's examples/scripts/prm.py with accelerate launch");
    return problems;
  }
  const words = all.slice(3);
  const set = new Map<string, string>();
  for (let i = 0; i < words.length; i++) {
    const name = words[i]!;
    const kind = TRL_PRM_OPTIONS.get(name);
    if (!kind) {
      problems.push(`${name} is not an option of examples/scripts/prm.py`);
      continue;
    }
    const next = words[i + 1];
    if (kind === "bool" && (next === undefined || next.startsWith("--"))) {
      set.set(name, "true");
      continue;
    }
    if (next === undefined || next.startsWith("--")) problems.push(`${name} needs a value`);
    set.set(name, next ?? "");
    i += 1;
  }
  for (const name of ["--model_name_or_path", "--dataset_name"]) if (!set.has(name)) problems.push(`${name} is not set`);
  if (set.get("--dataset_name") !== ".") problems.push("--dataset_name is not the export directory");
  const train = set.get("--dataset_train_split") ?? "train";
  const test = set.get("--dataset_test_split") ?? "test";
  if (!(train in splits.cardSplits)) problems.push(`--dataset_train_split ${train} is not a split of the dataset card`);
  else if (!(splits.rows[splits.cardSplits[train]!]! > 0)) problems.push(`the train split ${train} is empty`);
  // The script always indexes dataset[dataset_test_split] and evaluates after training.
  if (!(test in splits.cardSplits)) problems.push(`--dataset_test_split ${test} is not a split of the dataset card`);
  if ((set.get("--eval_strategy") ?? "no") !== "no" && test === train) problems.push("evaluation during training on the train split");
  return problems;
}

/** TRL's GRPOTrainer, as the Python script the manifest gives. */
export function checkTrlGrpoScript(script: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const config = /GRPOConfig\(([^)]*)\)/.exec(script);
  if (!config) return ["the script builds no GRPOConfig"];
  const kwargs = new Map([...config[1]!.matchAll(/(\w+)=([^,]+)/g)].map((m) => [m[1]!, m[2]!.trim()]));
  for (const name of kwargs.keys()) if (!TRL_GRPO_FIELDS.has(name)) problems.push(`${name} is not a GRPOConfig field`);
  const generations = Number(kwargs.get("num_generations") ?? 8);
  if (8 % generations !== 0) problems.push(`num_generations ${generations} does not divide the default 8 prompts per device`);
  const files = /data_files=(\{[^}]*\})/.exec(script);
  if (!files) return [...problems, "the script names no data_files"];
  const dataFiles = JSON.parse(files[1]!) as Record<string, string>;
  for (const [split, file] of Object.entries(dataFiles)) {
    if (splits.rows[file] === undefined) problems.push(`data_files names ${file}, not a file of the export`);
    else if (splits.rows[file] === 0) problems.push(`data_files names the empty ${file} (split ${split})`);
  }
  if (!dataFiles.train) problems.push("no train file");
  if (/eval_dataset=data\["test"\]/.test(script) && !dataFiles.test) problems.push("eval_dataset names a test split the script does not load");
  if (!script.includes("reward_funcs=[verdict_reward]")) problems.push("the reward function is not the export's verdict_reward");
  return problems;
}

export function checkLaunch(format: string, command: string, splits: ExportedSplits): string[] {
  switch (format) {
    case "verl":
      return checkVerlCommand(command, splits);
    case "openrlhf":
      return checkOpenrlhfCommand(command, splits);
    case "trl":
      return checkTrlGrpoScript(command, splits);
    case "trl-prm":
      return checkTrlPrmCommand(command, splits);
    default:
      return [`unknown format ${format}`];
  }
}
