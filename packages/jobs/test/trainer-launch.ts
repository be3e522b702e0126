import { readFileSync } from "node:fs";
import path from "node:path";
import { OPENRLHF_PRM_KEYS, OPENRLHF_PRM_PLACEHOLDER, OPENRLHF_PRM_REWARD_TOKENS, type TrainingSetFormat } from "../src";
import { SFT_TRAINER_RELEASES, type SftFormat } from "../src/kinds/export/sft/launch";

/**
 * Checks a generated launch command against the trainer release's own argument
 * definitions, as vendored under fixtures/trainer-configs (read from the release's
 * source; each file's header names the repository, tag, commit and how it was read):
 * every key or flag must exist, take the number of values its definition says, parse
 * as its type and be one of its choices; mandatory keys must be set; and the
 * cross-argument rules the release enforces at start-up (restated here from its
 * source, file named at each rule) must hold for the split sizes and prompt lengths
 * of the export. Each check returns the problems it found, in words close to the
 * release's own error messages; an empty list means the command would start.
 */

const FIXTURES = path.join(import.meta.dirname, "fixtures", "trainer-configs");

/** The GPUs of the node the commands are written for. */
export const TRAINER_NODE_GPUS = 8;

export interface FixtureRelease {
  trainer: string;
  release: string;
  tag: string;
  commit: string;
}

interface Fixture {
  file: string;
  release: FixtureRelease;
  header: string[];
  rows: string[][];
}

function readFixture(file: string): Fixture {
  const lines = readFileSync(path.join(FIXTURES, file), "utf8").split("\n");
  const header = lines.filter((line) => line.startsWith("#")).map((line) => line.replace(/^# ?/, ""));
  const found = header.map((line) => /^Release: (\S+) (\S+) \(tag (\S+), commit ([0-9a-f]{40})\)$/.exec(line)).find((m) => m !== null);
  if (!found) throw new Error(`${file} names no "Release: <trainer> <version> (tag <tag>, commit <sha>)" line`);
  const rows = lines.filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split("\t"));
  return { file, release: { trainer: found[1]!, release: found[2]!, tag: found[3]!, commit: found[4]! }, header, rows };
}

export const FIXTURE_FILES = {
  verlKeys: "verl-0.9.0-keys.txt",
  verlChoices: "verl-0.9.0-choices.txt",
  openrlhf: "openrlhf-0.11.0-train_ppo_ray-args.txt",
  openrlhfPrm: "openrlhf-0.9.5-train_prm-args.txt",
  trlPrm: "trl-1.9.0-prm-script-args.txt",
  trlGrpo: "trl-1.9.0-grpo-config-fields.txt",
} as const;

const fixtures = Object.fromEntries(Object.entries(FIXTURE_FILES).map(([key, file]) => [key, readFixture(file)])) as Record<keyof typeof FIXTURE_FILES, Fixture>;

/** The fixtures each format's command is checked against. */
export const FORMAT_FIXTURES: Record<TrainingSetFormat, Fixture[]> = {
  verl: [fixtures.verlKeys, fixtures.verlChoices],
  openrlhf: [fixtures.openrlhf],
  trl: [fixtures.trlGrpo],
  "trl-prm": [fixtures.trlPrm],
  "openrlhf-prm": [fixtures.openrlhfPrm],
};

/** The release a format's fixtures were read from (they must all name the same one). */
export function fixtureRelease(format: TrainingSetFormat): FixtureRelease {
  const [first, ...rest] = FORMAT_FIXTURES[format];
  for (const other of rest) {
    if (JSON.stringify(other.release) !== JSON.stringify(first!.release)) throw new Error(`${other.file} and ${first!.file} name different releases`);
  }
  return first!.release;
}

/** The header lines of a format's fixtures (where they were read from). */
export const fixtureHeader = (format: TrainingSetFormat): string[] => FORMAT_FIXTURES[format].flatMap((f) => f.header);

const parseChoices = (text: string | undefined): string[] | null => (text === undefined || text === "-" ? null : (JSON.parse(text) as unknown[]).map(String));

/** verl: dotted key → default (parsed JSON). */
export const VERL_KEYS = new Map(fixtures.verlKeys.rows.map(([key, value]) => [key!, JSON.parse(value!) as unknown]));
/** verl: dotted key → the type its default has, as the YAML writes it (1.0 is a float, 1 an int). */
const VERL_TYPES = new Map(
  fixtures.verlKeys.rows.map(([key, raw]) => [key!, /^-?\d+$/.test(raw!) ? "int" : /^-?[\d.]+(e[-+]?\d+)?$/i.test(raw!) ? "float" : raw === "true" || raw === "false" ? "bool" : "str"]),
);
/** verl: key → the values it accepts. */
export const VERL_CHOICES = new Map(fixtures.verlChoices.rows.map(([key, choices]) => [key!, parseChoices(choices)!]));

/** An argparse or HfArgumentParser option. kind: flag (no value), value (one), bool (HfArgumentParser: none or one), nargs=N|*|+. */
export interface CliOption {
  kind: string;
  type: string;
  choices: string[] | null;
  /** The definition's default, as Python source ("-" when not recorded). */
  default: string;
}

const argparseOptions = (fixture: Fixture) =>
  new Map(fixture.rows.map(([name, kind, type, choices, value]): [string, CliOption] => [name!, { kind: kind!, type: type!, choices: parseChoices(choices), default: value! }]));

/** OpenRLHF 0.11.0 train_ppo_ray: option → definition. */
export const OPENRLHF_OPTIONS = argparseOptions(fixtures.openrlhf);
/** OpenRLHF 0.9.5 train_prm: option → definition. */
export const OPENRLHF_PRM_OPTIONS = argparseOptions(fixtures.openrlhfPrm);
/** TRL 1.9.0 examples/scripts/prm.py: option → definition (and the dataclass it comes from). */
export const TRL_PRM_OPTIONS = new Map(
  fixtures.trlPrm.rows.map(([name, kind, type, choices, value, cls]): [string, CliOption & { class: string }] => [
    name!,
    { kind: kind!, type: type!, choices: parseChoices(choices), default: value!, class: cls! },
  ]),
);
/** TRL 1.9.0 GRPOConfig keyword arguments: name → {type, default, class}. */
export const TRL_GRPO_FIELDS = new Map(fixtures.trlGrpo.rows.map(([name, type, choices, value, cls]) => [name!, { type: type!, choices: parseChoices(choices), default: value!, class: cls! }]));

/** What the export wrote: rows per file, the splits its dataset card lists, and the lengths its commands must allow. */
export interface ExportedSplits {
  rows: Record<string, number>;
  cardSplits: Record<string, string>;
  /** The prompt token bound and the generation cap of the export; checked when given. */
  lengths?: { promptTokens: number; responseTokens: number };
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

const BOOL_WORDS = ["true", "false", "yes", "no", "y", "n", "1", "0", "t", "f"];

/** Whether `value` parses as a value of the Python type `type` (int, float, str, bool, …; anything else is not checked). */
function typeProblem(name: string, value: string, type: string, source: string): string | null {
  if (isPlaceholder(value)) return null;
  if (type === "int" && !/^[-+]?\d+$/.test(value)) return `${name} ${value}: invalid int value (type=int in ${source})`;
  if (type === "float" && !(value.trim() !== "" && Number.isFinite(Number(value)))) return `${name} ${value}: invalid float value (type=float in ${source})`;
  if (type === "bool" && !BOOL_WORDS.includes(value.toLowerCase())) return `${name} ${value}: not a boolean (type=bool in ${source})`;
  return null;
}

function choiceProblem(name: string, value: string, choices: string[] | null): string | null {
  if (choices === null || isPlaceholder(value) || choices.includes(value)) return null;
  return `${name} ${value}: invalid choice (choose from ${choices.map((c) => `'${c}'`).join(", ")})`;
}

function expectPrefix(words: string[], prefix: string[], problems: string[]): string[] {
  if (prefix.some((word, i) => words[i] !== word)) {
    problems.push(`the command does not start with "${prefix.join(" ")}"`);
    return [];
  }
  return words.slice(prefix.length);
}

/**
 * argparse (and HfArgumentParser, which builds on it): option words and their values.
 * A lone "-" is a value, as argparse takes it; anything starting with "--" is an option.
 */
function parseOptions(words: string[], options: Map<string, CliOption>, source: string, problems: string[]): Map<string, string[]> {
  const set = new Map<string, string[]>();
  const isOption = (word: string | undefined) => word !== undefined && word.startsWith("--");
  for (let i = 0; i < words.length; i++) {
    const name = words[i]!;
    const option = options.get(name);
    if (!option) {
      problems.push(`${name} is not an option of ${source}`);
      continue;
    }
    let values: string[] = [];
    if (option.kind === "bool") {
      if (!isOption(words[i + 1]) && words[i + 1] !== undefined) values = [words[i + 1]!];
    } else if (option.kind === "value") {
      if (isOption(words[i + 1]) || words[i + 1] === undefined) problems.push(`${name}: expected one argument`);
      else values = [words[i + 1]!];
    } else if (option.kind.startsWith("nargs=")) {
      const nargs = option.kind.slice("nargs=".length);
      let j = i + 1;
      while (j < words.length && !isOption(words[j]) && (nargs === "*" || nargs === "+" || j - i - 1 < Number(nargs))) j += 1;
      values = words.slice(i + 1, j);
      if ((nargs === "+" && values.length === 0) || (/^\d+$/.test(nargs) && values.length !== Number(nargs))) problems.push(`${name}: expected ${nargs === "+" ? "at least one argument" : `${nargs} arguments`}`);
    }
    if (set.has(name)) problems.push(`${name} is given twice`);
    set.set(name, values);
    i += values.length;
    for (const value of values) {
      const problem = typeProblem(name, value, option.type, source) ?? choiceProblem(name, value, option.choices);
      if (problem) problems.push(problem);
    }
  }
  return set;
}

/** A value as the command sets it, else the definition's default (Python source, quotes removed). */
function valueOf(set: Map<string, string[]>, options: Map<string, CliOption>, name: string): string {
  if (set.has(name)) {
    const option = options.get(name);
    if (option?.kind === "flag") return "True";
    if (option?.kind === "bool" && set.get(name)!.length === 0) return "True";
    return set.get(name)!.join(" ");
  }
  return (options.get(name)?.default ?? "None").replace(/^'(.*)'$/, "$1");
}

function lengthProblems(splits: ExportedSplits, checks: Array<{ what: string; value: number; needs: number; why: string }>): string[] {
  if (!splits.lengths) return [];
  return checks.filter((c) => !(c.value >= c.needs)).map((c) => `${c.what} is ${Number.isNaN(c.value) ? "not set" : c.value}, below ${c.needs}: ${c.why}`);
}

/** verl 0.9.0's main_ppo: Hydra overrides `key=value`. */
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
    const value = word.slice(eq + 1);
    if (!VERL_KEYS.has(key)) {
      problems.push(`${key} is not a key of verl's config (Could not override '${key}': key not in struct)`);
      continue;
    }
    if (set.has(key)) problems.push(`${key} is set twice`);
    set.set(key, value);
    // The value must have the default's type (Hydra merges the override into the typed config).
    const problem = typeProblem(key, value, VERL_TYPES.get(key)!, FIXTURE_FILES.verlKeys) ?? choiceProblem(key, value, VERL_CHOICES.get(key) ?? null);
    if (problem) problems.push(problem);
  }
  const value = (key: string): unknown => (set.has(key) ? set.get(key) : VERL_KEYS.get(key));
  const int = (key: string) => Number(value(key));
  const isTrue = (key: string) => String(value(key)).toLowerCase() === "true";
  for (const [key, fallback] of VERL_KEYS) {
    if (fallback !== "???" || set.has(key)) continue;
    // The reward model's rollout is read only when a reward model is enabled.
    if (key.startsWith("reward.reward_model.") && !isTrue("reward.reward_model.enable")) continue;
    problems.push(`${key} is mandatory (??? in verl's config) and not set`);
  }
  for (const key of ["actor_rollout_ref.model.path", "data.max_prompt_length"]) {
    if (!set.has(key)) problems.push(`${key} is not set (verl's default does not fit a judge training set)`);
  }
  // Data files: the train file must hold a full batch (drop_last); the validation file must not be empty
  // (verl/trainer/ppo/ray_trainer.py asserts both, even when validation never runs).
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
  const validating = isTrue("trainer.val_before_train") || int("trainer.test_freq") > 0;
  if (valFile === trainFile && validating) problems.push(`validation runs on the train file ${trainFile}: set trainer.val_before_train=False and trainer.test_freq=-1 to turn it off`);
  // verl/utils/config.py validate_config, verl/workers/config/actor.py ActorConfig, verl/workers/engine_workers.py.
  const gpus = int("trainer.n_gpus_per_node") * int("trainer.nnodes");
  const n = int("actor_rollout_ref.rollout.n");
  const mini = int("actor_rollout_ref.actor.ppo_mini_batch_size");
  const given = (key: string) => value(key) !== null && value(key) !== undefined;
  if (!isTrue("actor_rollout_ref.actor.use_dynamic_bsz")) {
    if ((trainBatch * n) % gpus !== 0) problems.push(`real_train_batch_size (${trainBatch * n}) must be divisible by minimal possible batch size (${gpus})`);
    if (trainBatch < mini) problems.push(`train_batch_size (${trainBatch}) must be >= actor.ppo_mini_batch_size (${mini})`);
    const micro = "actor_rollout_ref.actor.ppo_micro_batch_size";
    if (!given(micro) && !given(`${micro}_per_gpu`)) problems.push("[actor_rollout_ref.actor] Please set at least one of 'actor_rollout_ref.actor.ppo_micro_batch_size' or 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'.");
    if (given(micro) && given(`${micro}_per_gpu`)) problems.push("[actor_rollout_ref.actor] You have set both 'actor_rollout_ref.actor.ppo_micro_batch_size' AND 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'.");
    if (given(micro) && mini % int(micro) !== 0) problems.push(`ppo_mini_batch_size (${mini}) must be divisible by ppo_micro_batch_size (${int(micro)})`);
    const logProb = "actor_rollout_ref.rollout.log_prob_micro_batch_size";
    if (!given(logProb) && !given(`${logProb}_per_gpu`)) problems.push("[actor_rollout_ref.rollout] Please set at least one of 'actor_rollout_ref.rollout.log_prob_micro_batch_size' or 'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu'.");
    if (given(logProb) && given(`${logProb}_per_gpu`)) problems.push("[actor_rollout_ref.rollout] You have set both 'actor_rollout_ref.rollout.log_prob_micro_batch_size' AND 'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu'.");
    // engine_workers.train_mini_batch splits each mini-batch of ppo_mini_batch_size × rollout.n samples over the data-parallel ranks.
    const dp = gpus / Math.max(1, int("actor_rollout_ref.actor.ulysses_sequence_parallel_size"));
    if ((mini * n) % dp !== 0) problems.push(`Got mini_batch_size=${mini * n} and data parallel size ${dp}: ppo_mini_batch_size × rollout.n must divide by it`);
  }
  // verl/workers/rollout/llm_server.py: num_replicas = world_size // (tensor × data × pipeline parallel size).
  const rolloutWorld = int("actor_rollout_ref.rollout.tensor_model_parallel_size") * int("actor_rollout_ref.rollout.data_parallel_size") * int("actor_rollout_ref.rollout.pipeline_model_parallel_size");
  if (!(Math.floor(gpus / rolloutWorld) >= 1)) problems.push(`rollout world size ${rolloutWorld} exceeds the ${gpus} GPUs: no rollout replica`);
  const rewardPath = set.get("reward.custom_reward_function.path") ?? set.get("custom_reward_function.path");
  if (rewardPath !== "reward.py") problems.push("reward.custom_reward_function.path is not the export's reward.py");
  const rewardName = set.get("reward.custom_reward_function.name") ?? set.get("custom_reward_function.name") ?? String(value("reward.custom_reward_function.name"));
  if (rewardName !== "compute_score") problems.push(`reward.custom_reward_function.name=${rewardName} is not reward.py's compute_score`);
  problems.push(
    ...lengthProblems(splits, [
      { what: "data.max_prompt_length", value: int("data.max_prompt_length"), needs: splits.lengths?.promptTokens ?? 0, why: "data.truncation=error stops on a longer prompt" },
      { what: "data.max_response_length", value: int("data.max_response_length"), needs: splits.lengths?.responseTokens ?? 0, why: "a rationale is cut before its verdict" },
    ]),
  );
  return problems;
}

const OPENRLHF_PPO = "train_ppo_ray";

/** OpenRLHF 0.11.0's train_ppo_ray: argparse options, and the assertions of openrlhf/cli/train_ppo_ray.py. */
export function checkOpenrlhfCommand(command: string, splits: ExportedSplits, node = { gpus: 8 }): string[] {
  const problems: string[] = [];
  const words = expectPrefix(shellWords(command), ["python3", "-m", "openrlhf.cli.train_ppo_ray"], problems);
  const set = parseOptions(words, OPENRLHF_OPTIONS, OPENRLHF_PPO, problems);
  const value = (name: string) => valueOf(set, OPENRLHF_OPTIONS, name);
  const int = (name: string) => Number(value(name));
  const on = (name: string) => value(name) === "True";
  for (const name of ["--data.prompt_dataset", "--actor.model_name_or_path"]) if (!set.has(name)) problems.push(`${name} is not set`);
  if (value("--data.input_key") !== "prompt") problems.push(`--data.input_key ${value("--data.input_key")} is not the export's prompt key`);
  if (value("--data.label_key") !== "label") problems.push(`--data.label_key ${value("--data.label_key")} is not the export's label key`);
  if (!on("--data.apply_chat_template")) problems.push("--data.apply_chat_template is not set: the prompts are chat messages");
  if (!set.has("--reward.remote_url") && !set.has("--reward.model_name_or_path")) problems.push("no reward: set --reward.remote_url or --reward.model_name_or_path");
  const trainRows = splits.rows[value("--data.prompt_dataset")];
  if (trainRows === undefined) problems.push(`--data.prompt_dataset ${value("--data.prompt_dataset")} is not a file of the export`);
  if (set.has("--eval.dataset")) {
    const rows = splits.rows[value("--eval.dataset")];
    if (rows === undefined) problems.push(`--eval.dataset ${value("--eval.dataset")} is not a file of the export`);
    else if (rows === 0) problems.push(`--eval.dataset ${value("--eval.dataset")} is empty`);
    if (!set.has("--reward.remote_url") && !set.has("--train.agent_func_path")) problems.push("`--eval_dataset` requires either `--remote_rm_url` (for remote reward models) or `--agent_func_path`");
  }
  const estimator = value("--algo.advantage.estimator");
  const n = int("--rollout.n_samples_per_prompt");
  if (["rloo", "reinforce_baseline", "group_norm", "dr_grpo"].includes(estimator) && !(n > 1)) problems.push(`${estimator} requires n_samples_per_prompt > 1`);
  const rolloutBatch = int("--rollout.batch_size");
  const trainBatch = int("--train.batch_size");
  if (trainRows !== undefined && rolloutBatch > trainRows) problems.push(`--rollout.batch_size ${rolloutBatch} exceeds the ${trainRows} prompts of the train file`);
  if (trainBatch > rolloutBatch * n) problems.push(`--train.batch_size ${trainBatch} exceeds the ${rolloutBatch * n} samples of one rollout batch`);
  const actorGpus = int("--actor.num_nodes") * int("--actor.num_gpus_per_node");
  if (Math.floor((n * rolloutBatch) / int("--rollout.micro_batch_size")) < Math.floor(actorGpus / int("--ds.ring_attn_size") / int("--ds.tensor_parallel_size"))) {
    problems.push("The number of sample batches must be greater than or equal to the effective number of actor processes.");
  }
  // Generation: the sample generator sends every prompt to a vLLM engine (openrlhf/trainer/ppo_utils/samples_generator.py); without one there is none to send to.
  const engines = value("--vllm.num_engines") === "None" ? 0 : int("--vllm.num_engines");
  const tp = int("--vllm.tensor_parallel_size");
  if (!(engines > 0)) problems.push("--vllm.num_engines is not set: train_ppo_ray generates rollouts with vLLM engines only");
  if (on("--ds.packing_samples") && !(engines > 0)) problems.push("Only support `--packing_samples` with vLLM.");
  const colocateAll = on("--train.colocate_all");
  const asyncTrain = on("--train.async_enable");
  const kl = Number(value("--algo.kl.init_coef")) > 0;
  const refGpus = int("--ref.num_nodes") * int("--ref.num_gpus_per_node");
  if ((colocateAll || on("--train.colocate_actor_ref")) && kl && !(int("--ref.num_nodes") === int("--actor.num_nodes") && int("--ref.num_gpus_per_node") === int("--actor.num_gpus_per_node"))) {
    problems.push("num_nodes and num_gpus_per_node must be the same when colocate actor and ref model.");
  }
  if (engines > 0 && colocateAll && !asyncTrain && actorGpus !== engines * tp) {
    problems.push(`actor_num_nodes * actor_num_gpus_per_node must be equal to vllm_num_engines * vllm_tensor_parallel_size, got ${actorGpus} and ${engines * tp}`);
  }
  const vllmBatch = value("--rollout.vllm_generate_batch_size") === "None" ? rolloutBatch : int("--rollout.vllm_generate_batch_size");
  if (vllmBatch > rolloutBatch && !asyncTrain) problems.push("--rollout.vllm_generate_batch_size > --rollout.batch_size requires --train.async_enable");
  // GPUs: each group gets its own placement group unless colocated (train_ppo_ray.train); a reference model exists when the KL coefficient is above 0.
  const critic = estimator === "gae" ? int("--critic.num_nodes") * int("--critic.num_gpus_per_node") : 0;
  const reward = set.has("--reward.remote_url") ? 0 : int("--reward.num_nodes") * int("--reward.num_gpus_per_node");
  let total: number;
  if (colocateAll && !asyncTrain) total = actorGpus;
  else if (colocateAll || on("--train.colocate_actor_ref")) total = actorGpus + engines * tp + critic + reward;
  else total = actorGpus + (kl ? refGpus : 0) + engines * tp + critic + reward;
  if (total > node.gpus) problems.push(`the actor, reference model and vLLM engines need ${total} GPUs, more than the node's ${node.gpus}`);
  problems.push(
    ...lengthProblems(splits, [
      { what: "--rollout.max_new_tokens", value: value("--rollout.max_new_tokens") === "None" ? NaN : int("--rollout.max_new_tokens"), needs: splits.lengths?.responseTokens ?? 0, why: "a rationale is cut before its verdict" },
      {
        what: "--data.max_len",
        value: int("--data.max_len"),
        needs: (splits.lengths?.promptTokens ?? 0) + (value("--rollout.max_new_tokens") === "None" ? 0 : int("--rollout.max_new_tokens")),
        why: "vLLM's max_model_len; a longer prompt loses its beginning (openrlhf/utils/agent.py)",
      },
    ]),
  );
  return problems;
}

const OPENRLHF_PRM = "train_prm";

/** OpenRLHF 0.9.5's train_prm: argparse options, ProcessRewardDataset, the DeepSpeed strategy's batch arithmetic. */
export function checkOpenrlhfPrmCommand(command: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const all = shellWords(command);
  const gpus = all[1] === "--num_gpus" ? Number(all[2]) : NaN;
  const words = expectPrefix(all, ["deepspeed", "--num_gpus", String(gpus), "--module", "openrlhf.cli.train_prm"], problems);
  if (!(gpus >= 1)) problems.push("deepspeed --num_gpus is not set: the batch sizes depend on the GPU count");
  const set = parseOptions(words, OPENRLHF_PRM_OPTIONS, OPENRLHF_PRM, problems);
  const value = (name: string) => valueOf(set, OPENRLHF_PRM_OPTIONS, name);
  const int = (name: string) => Number(value(name));
  if (!set.has("--pretrain")) problems.push("--pretrain is not set");
  if (!set.has("--dataset")) problems.push("--dataset is not set: blending_datasets splits None");
  // ProcessRewardDataset (openrlhf/datasets/process_reward_dataset.py): the placeholder's id marks each step, and each string label must be a reward token.
  if (!set.has("--placeholder_token")) problems.push("--placeholder_token is not set: convert_token_to_id(None) raises \"token should be int or str\"");
  else if (value("--placeholder_token") !== OPENRLHF_PRM_PLACEHOLDER) problems.push(`--placeholder_token ${value("--placeholder_token")} is not the placeholder the rows hold (${OPENRLHF_PRM_PLACEHOLDER})`);
  if (set.has("--reward_tokens")) {
    const tokens = set.get("--reward_tokens")!;
    for (const label of OPENRLHF_PRM_REWARD_TOKENS) if (!tokens.includes(label)) problems.push(`label should be in reward tokens [${tokens.join(", ")}], got ${label}`);
  }
  if (value("--input_key") !== OPENRLHF_PRM_KEYS.input) problems.push(`--input_key ${value("--input_key")} is not the rows' input key (${OPENRLHF_PRM_KEYS.input})`);
  if (value("--label_key") !== OPENRLHF_PRM_KEYS.label) problems.push(`--label_key ${value("--label_key")} is not the rows' label key (${OPENRLHF_PRM_KEYS.label})`);
  // openrlhf/datasets/utils.py blending_datasets: a .jsonl loads as datasets.load_dataset("json"), whose only split is "train";
  // any other split name leaves a DatasetDict, which has no .select.
  const trainFile = value("--dataset");
  const trainRows = splits.rows[trainFile];
  if (set.has("--dataset") && trainRows === undefined) problems.push(`--dataset ${trainFile} is not a file of the export`);
  if (value("--dataset_split") !== "train") problems.push(`--dataset_split ${value("--dataset_split")}: a JSONL file's only split is train`);
  if (set.has("--eval_dataset")) {
    const rows = splits.rows[value("--eval_dataset")];
    if (rows === undefined) problems.push(`--eval_dataset ${value("--eval_dataset")} is not a file of the export`);
    else if (rows < gpus) problems.push(`--eval_dataset ${value("--eval_dataset")} has ${rows} rows, fewer than the ${gpus} GPUs: the evaluation sampler (drop_last) gives each rank none`);
    if (value("--eval_split") !== "train") problems.push(`--eval_split ${value("--eval_split")}: a JSONL file's only split is train (the default "test" leaves a DatasetDict, which has no .select)`);
  }
  // openrlhf/utils/deepspeed/deepspeed.py: accumulated_gradient = train_batch_size // micro_train_batch_size // world_size, and
  // DeepSpeed requires train_batch_size = micro × accumulation × world size; train_prm.py: an epoch has len(train) // train_batch_size updates.
  const trainBatch = int("--train_batch_size");
  const micro = int("--micro_train_batch_size");
  if (!(Math.floor(trainBatch / micro / gpus) >= 1) || trainBatch % (micro * gpus) !== 0) {
    problems.push(`--train_batch_size ${trainBatch} must be a positive multiple of --micro_train_batch_size ${micro} × ${gpus} GPUs (DeepSpeed's gradient accumulation)`);
  }
  if (trainRows !== undefined && !(Math.floor(trainRows / trainBatch) >= 1)) problems.push(`--train_batch_size ${trainBatch} exceeds the ${trainRows} rows of ${trainFile}: an epoch would have 0 updates (division by zero in fit)`);
  problems.push(
    ...lengthProblems(splits, [{ what: "--max_len", value: int("--max_len"), needs: splits.lengths?.promptTokens ?? 0, why: "a longer input is truncated, and its last steps lose their labels" }]),
  );
  return problems;
}

const TRL_PRM = "examples/scripts/prm.py";

/** TRL 1.9.0's examples/scripts/prm.py: HfArgumentParser options (it refuses any it does not know). */
export function checkTrlPrmCommand(command: string, splits: ExportedSplits): string[] {
  const problems: string[] = [];
  const all = shellWords(command);
  const release = fixtureRelease("trl-prm");
  if (all[0] !== "accelerate" || all[1] !== "launch" || !all[2]?.endsWith(`/${TRL_PRM}`)) {
    problems.push(`the command does not run TRL's ${TRL_PRM} with accelerate launch`);
    return problems;
  }
  if (!fixtureHeader("trl-prm").some((line) => line.includes(TRL_PRM))) problems.push(`${TRL_PRM} is not a file the fixture was read from`);
  if (!all[2].includes(`tag ${release.tag}`)) problems.push(`the command's TRL checkout is not named at tag ${release.tag}, the release its options were checked against`);
  const set = parseOptions(all.slice(3), TRL_PRM_OPTIONS, TRL_PRM, problems);
  const value = (name: string) => valueOf(set, TRL_PRM_OPTIONS, name);
  for (const name of ["--model_name_or_path", "--dataset_name"]) if (!set.has(name)) problems.push(`${name} is not set`);
  if (set.has("--dataset_name") && value("--dataset_name") === ".") problems.push(`--dataset_name .: ${DOT_DIRECTORY}`);
  else if (set.has("--dataset_name") && value("--dataset_name") !== EXPORT_DIRECTORY) problems.push("--dataset_name is not the export directory");
  const train = value("--dataset_train_split");
  const test = value("--dataset_test_split");
  if (!(train in splits.cardSplits)) problems.push(`--dataset_train_split ${train} is not a split of the dataset card`);
  else if (!(splits.rows[splits.cardSplits[train]!]! > 0)) problems.push(`the train split ${train} is empty`);
  // The script always indexes dataset[dataset_test_split] and evaluates after training.
  if (!(test in splits.cardSplits)) problems.push(`--dataset_test_split ${test} is not a split of the dataset card`);
  if ((set.get("--eval_strategy")?.[0] ?? "no") !== "no" && test === train) problems.push("evaluation during training on the train split");
  problems.push(
    ...lengthProblems(splits, [
      { what: "--max_length", value: Number(value("--max_length")), needs: splits.lengths?.promptTokens ?? 0, why: "PRMTrainer truncates longer solutions, and their last steps lose their labels" },
    ]),
  );
  return problems;
}

/** transformers' TrainingArguments defaults the GRPO checks use (per_device_train/eval_batch_size, gradient_accumulation_steps). */
const TRAINING_ARGUMENT_DEFAULTS = { per_device_train_batch_size: 8, per_device_eval_batch_size: 8, gradient_accumulation_steps: 1 };

function pythonLiteral(text: string): { kind: "int" | "float" | "str" | "bool" | "other"; value: unknown } {
  if (/^[-+]?\d+$/.test(text)) return { kind: "int", value: Number(text) };
  if (/^[-+]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)$/.test(text)) return { kind: "float", value: Number(text) };
  if (/^"[^"]*"$/.test(text) || /^'[^']*'$/.test(text)) return { kind: "str", value: text.slice(1, -1) };
  if (text === "True" || text === "False") return { kind: "bool", value: text === "True" };
  return { kind: "other", value: text };
}

/** TRL 1.9.0's GRPOTrainer, as the Python script the manifest gives; the rules of GRPOConfig.__post_init__. */
export function checkTrlGrpoScript(script: string, splits: ExportedSplits, processes: readonly number[] = [1, TRAINER_NODE_GPUS]): string[] {
  const problems: string[] = [];
  const config = /GRPOConfig\(([^)]*)\)/.exec(script);
  if (!config) return ["the script builds no GRPOConfig"];
  const kwargs = new Map([...config[1]!.matchAll(/(\w+)=([^,]+)/g)].map((m) => [m[1]!, m[2]!.trim()]));
  for (const [name, text] of kwargs) {
    const field = TRL_GRPO_FIELDS.get(name);
    if (!field) {
      problems.push(`GRPOConfig.__init__() got an unexpected keyword argument '${name}'`);
      continue;
    }
    const literal = pythonLiteral(text);
    const accepts: Record<string, string[]> = { int: ["int"], float: ["int", "float"], str: ["str"], bool: ["bool"] };
    if (accepts[field.type] && !accepts[field.type]!.includes(literal.kind)) problems.push(`${name}=${text} is not of type ${field.type} (GRPOConfig.${name}: ${field.type})`);
  }
  const number = (name: string, fallback: number) => (kwargs.has(name) ? Number(kwargs.get(name)) : fallback);
  const generations = number("num_generations", Number(TRL_GRPO_FIELDS.get("num_generations")?.default ?? 8));
  if (generations < 2) problems.push(`GRPO requires at least 2 generations per prompt to calculate the advantages. You provided ${generations}, which is less than the minimum required.`);
  if (kwargs.has("generation_batch_size") && kwargs.has("steps_per_generation")) problems.push("'generation_batch_size' and 'steps_per_generation' can not be both configured at the same time");
  const perDevice = number("per_device_train_batch_size", TRAINING_ARGUMENT_DEFAULTS.per_device_train_batch_size);
  const evalPerDevice = number("per_device_eval_batch_size", TRAINING_ARGUMENT_DEFAULTS.per_device_eval_batch_size);
  const steps = number("steps_per_generation", number("gradient_accumulation_steps", TRAINING_ARGUMENT_DEFAULTS.gradient_accumulation_steps));
  const evaluating = (kwargs.get("eval_strategy") ?? '"no"').replaceAll(/["']/g, "") !== "no";
  for (const world of processes) {
    const generationBatch = kwargs.has("generation_batch_size") ? number("generation_batch_size", 0) : perDevice * world * steps;
    if (kwargs.has("generation_batch_size") && generationBatch % (perDevice * world) !== 0) problems.push(`generation_batch_size (${generationBatch}) must be divisible by the global batch size (${perDevice * world}).`);
    if (generationBatch % generations !== 0) problems.push(`generation_batch_size (${generationBatch}) must be divisible by num_generations (${generations}), on ${world} process(es).`);
    const evalGenerations = number("num_generations_eval", generations);
    if (evaluating && (evalPerDevice * world) % evalGenerations !== 0) problems.push(`The global eval batch size (${evalPerDevice} * ${world}) must be divisible by the number of generations used for evaluation (${evalGenerations}).`);
  }
  const files = /data_files=(\{[^}]*\})/.exec(script);
  if (!files) return [...problems, "the script names no data_files"];
  const dataFiles = JSON.parse(files[1]!) as Record<string, string>;
  for (const [split, file] of Object.entries(dataFiles)) {
    if (splits.rows[file] === undefined) problems.push(`data_files names ${file}, not a file of the export`);
    else if (splits.rows[file] === 0) problems.push(`data_files names the empty ${file} (split ${split})`);
  }
  if (!dataFiles.train) problems.push("no train file");
  if (/eval_dataset=data\["test"\]/.test(script) && !dataFiles.test) problems.push("eval_dataset names a test split the script does not load");
  if (evaluating && !/eval_dataset=/.test(script)) problems.push("eval_strategy is set but no eval_dataset is passed");
  if (!script.includes("reward_funcs=[verdict_reward]")) problems.push("the reward function is not the export's verdict_reward");
  problems.push(
    ...lengthProblems(splits, [
      { what: "max_completion_length", value: number("max_completion_length", Number(TRL_GRPO_FIELDS.get("max_completion_length")?.default)), needs: splits.lengths?.responseTokens ?? 0, why: "a rationale is cut before its verdict" },
    ]),
  );
  return problems;
}

export function checkLaunch(format: string, command: string, splits: ExportedSplits): string[] {
  switch (format) {
    case "verl":
      return checkVerlCommand(command, splits);
    case "openrlhf":
      return checkOpenrlhfCommand(command, splits, { gpus: TRAINER_NODE_GPUS });
    case "trl":
      return checkTrlGrpoScript(command, splits);
    case "trl-prm":
      return checkTrlPrmCommand(command, splits);
    case "openrlhf-prm":
      return checkOpenrlhfPrmCommand(command, splits);
    default:
      return [`unknown format ${format}`];
  }
}

/*
 * Supervised fine-tuning: the launch lines of the SFT exports (src/kinds/export/sft/launch.ts),
 * checked against the SFT entry points of the same releases, vendored the same way.
 */

export const SFT_FIXTURE_FILES = {
  openrlhfSft: "openrlhf-0.11.0-train_sft-args.txt",
  trlSft: "trl-1.9.0-sft-script-args.txt",
  trlAccelerate: "trl-1.9.0-accelerate-configs.txt",
  verlSftKeys: "verl-0.9.0-sft-keys.txt",
  verlSftChoices: "verl-0.9.0-sft-choices.txt",
} as const;

const sftFixtures = Object.fromEntries(Object.entries(SFT_FIXTURE_FILES).map(([key, file]) => [key, readFixture(file)])) as Record<keyof typeof SFT_FIXTURE_FILES, Fixture>;

/** The fixtures each SFT format's command is checked against. */
export const SFT_FORMAT_FIXTURES: Record<SftFormat, Fixture[]> = {
  "chat-jsonl": [sftFixtures.openrlhfSft],
  "trl-sft": [sftFixtures.trlSft, sftFixtures.trlAccelerate],
  "verl-sft": [sftFixtures.verlSftKeys, sftFixtures.verlSftChoices],
};

/** The release an SFT format's fixtures were read from (they must all name the same one). */
export function sftFixtureRelease(format: SftFormat): FixtureRelease {
  const [first, ...rest] = SFT_FORMAT_FIXTURES[format];
  for (const other of rest) {
    if (JSON.stringify(other.release) !== JSON.stringify(first!.release)) throw new Error(`${other.file} and ${first!.file} name different releases`);
  }
  return first!.release;
}

/** The header lines of an SFT format's fixtures (where they were read from). */
export const sftFixtureHeader = (format: SftFormat): string[] => SFT_FORMAT_FIXTURES[format].flatMap((f) => f.header);

/** OpenRLHF 0.11.0 train_sft: option → definition. */
export const OPENRLHF_SFT_OPTIONS = argparseOptions(sftFixtures.openrlhfSft);
/** TRL 1.9.0 `trl sft`: option → definition (and the dataclass it comes from). */
export const TRL_SFT_OPTIONS = new Map(
  sftFixtures.trlSft.rows.map(([name, kind, type, choices, value, cls]): [string, CliOption & { class: string }] => [
    name!,
    { kind: kind!, type: type!, choices: parseChoices(choices), default: value!, class: cls! },
  ]),
);

export interface AccelerateConfig {
  distributedType: string;
  numProcesses: number;
  mixedPrecision: string;
  /** What the file says it needs ("accelerate>=1.7.0"), or null. */
  requires: string | null;
}

/** TRL 1.9.0's trl/accelerate_configs: name → configuration. */
export const TRL_ACCELERATE_CONFIGS = new Map(
  sftFixtures.trlAccelerate.rows.map(([name, type, processes, precision, , requires]): [string, AccelerateConfig] => [
    name!,
    { distributedType: type!, numProcesses: Number(processes), mixedPrecision: precision!, requires: requires === "-" ? null : requires! },
  ]),
);

/** verl 0.9.0 SFT trainer: dotted key → default (parsed JSON). */
export const VERL_SFT_KEYS = new Map(sftFixtures.verlSftKeys.rows.map(([key, value]) => [key!, JSON.parse(value!) as unknown]));
/** verl SFT: dotted key → the type its default has (null: any). */
const VERL_SFT_TYPES = new Map(
  sftFixtures.verlSftKeys.rows.map(([key, raw]) => {
    const type = /^-?\d+$/.test(raw!) ? "int" : /^-?[\d.]+(e[-+]?\d+)?$/i.test(raw!) ? "float" : raw === "true" || raw === "false" ? "bool" : raw!.startsWith("[") ? "list" : raw!.startsWith("{") ? "dict" : raw === "null" ? "any" : "str";
    return [key!, type];
  }),
);
/** verl SFT: key → the values it accepts. */
export const VERL_SFT_CHOICES = new Map(sftFixtures.verlSftChoices.rows.map(([key, choices]) => [key!, parseChoices(choices)!]));

/** The key of the rows' chat messages in every SFT format. */
const SFT_MESSAGES_KEY = "messages";

/** How a command names the export directory it is run from: absolute, since datasets cannot load ".". */
const EXPORT_DIRECTORY = "$PWD";
/**
 * datasets 4.7.0 (huggingface/datasets tag 4.7.0, commit ac9c452f2a0002f7c05c134a719234c24e1f6783), src/datasets/load.py:
 * LocalDatasetModuleFactory names the builder camelcase_to_snakecase(Path(path).name), "" for ".", and
 * get_dataset_builder_class raises when the name is empty.
 */
const DOT_DIRECTORY = `datasets.load_dataset(".") raises "dataset_name should be specified but got None" (the builder is named after the path's last component, empty for "."): name the directory as "${EXPORT_DIRECTORY}"`;

/** What an SFT export wrote: rows per file, the splits its dataset card lists, and the token bound of its longest row (checked when given). */
export interface SftExportedSplits {
  rows: Record<string, number>;
  cardSplits: Record<string, string>;
  sequenceTokens?: number;
}

function sequenceProblem(splits: SftExportedSplits, what: string, value: number, why: string): string[] {
  if (splits.sequenceTokens === undefined || value >= splits.sequenceTokens) return [];
  return [`${what} is ${Number.isNaN(value) ? "not set" : value}, below ${splits.sequenceTokens}: ${why}`];
}

/** Compares dotted version numbers: negative when a < b. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

const OPENRLHF_SFT = "train_sft";

/** OpenRLHF 0.11.0's train_sft: argparse options, its checks after parsing, SFTDataset, and the DeepSpeed strategy's batch arithmetic. */
export function checkOpenrlhfSftCommand(command: string, splits: SftExportedSplits): string[] {
  const problems: string[] = [];
  const all = shellWords(command);
  const gpus = all[1] === "--num_gpus" ? Number(all[2]) : NaN;
  const words = expectPrefix(all, ["deepspeed", "--num_gpus", String(gpus), "--module", "openrlhf.cli.train_sft"], problems);
  if (!(gpus >= 1)) problems.push("deepspeed --num_gpus is not set: the batch sizes depend on the GPU count");
  const set = parseOptions(words, OPENRLHF_SFT_OPTIONS, OPENRLHF_SFT, problems);
  const value = (name: string) => valueOf(set, OPENRLHF_SFT_OPTIONS, name);
  const int = (name: string) => Number(value(name));
  const on = (name: string) => value(name) === "True";
  if (!set.has("--model.model_name_or_path")) problems.push("--model.model_name_or_path is not set: Actor has no model to load");
  if (!set.has("--data.dataset")) problems.push("--data.dataset is not set: blending_datasets splits None");
  // train_sft.py, after parsing.
  if (on("--data.multiturn") && !on("--data.apply_chat_template")) problems.push("apply_chat_template must be enabled when using multiturn format");
  if (int("--ds.ring_attn_size") > 1 && !on("--ds.packing_samples")) problems.push("packing_samples must be enabled when using ring attention");
  // openrlhf/datasets/sft_dataset.py preprocess_data over rows {"messages": [user, assistant], ...}: with the chat template and no
  // output_key, messages[:-1] is the prompt and the rest of the templated conversation the response.
  if (value("--data.input_key") !== SFT_MESSAGES_KEY) problems.push(`--data.input_key ${value("--data.input_key")} is not the rows' messages key (${SFT_MESSAGES_KEY})`);
  if (!on("--data.apply_chat_template")) problems.push("--data.apply_chat_template is not set: SFTDataset would format the message list into --data.input_template as text");
  if (set.has("--data.output_key")) problems.push(`--data.output_key is set: preprocess_data would take --data.input_key as the prompt alone and the response from ${value("--data.output_key")}, a key the rows do not have`);
  if (on("--model.pretrain_mode_enable")) problems.push("--model.pretrain_mode_enable skips the chat template and trains on the prompt too");
  // openrlhf/datasets/utils.py blending_datasets: a .jsonl loads as datasets.load_dataset("json"), whose only split is "train";
  // a directory, once load_from_disk fails, as datasets.load_dataset(dir), whose splits are the dataset card's.
  const rowsOf = (flag: string, splitFlag: string): number | undefined => {
    const source = value(flag);
    const split = value(splitFlag);
    if (source === ".") problems.push(`${flag} .: ${DOT_DIRECTORY}`);
    else if (source === EXPORT_DIRECTORY) {
      if (split in splits.cardSplits) return splits.rows[splits.cardSplits[split]!];
      problems.push(`${splitFlag} ${split} is not a split of the dataset card`);
    } else if (splits.rows[source] === undefined) problems.push(`${flag} ${source} is not a file of the export`);
    else if (split !== "train") problems.push(`${splitFlag} ${split}: a JSONL file's only split is train`);
    else return splits.rows[source];
    return undefined;
  };
  const trainRows = set.has("--data.dataset") ? rowsOf("--data.dataset", "--data.dataset_split") : undefined;
  // openrlhf/utils/deepspeed/deepspeed.py: accumulated_gradient = train_batch_size × ring × tp // micro // world_size, and DeepSpeed
  // requires train_batch_size = micro × accumulation × world size; train_sft.py: an epoch has len(train) // train_batch_size updates,
  // and SFTTrainer.fit raises when that is 0.
  const ring = int("--ds.ring_attn_size");
  const tp = int("--ds.tensor_parallel_size");
  const dp = gpus / ring / tp;
  const batch = int("--train.batch_size");
  const micro = int("--train.micro_batch_size");
  const accumulation = Math.floor((batch * ring * tp) / micro / gpus);
  if (!(accumulation >= 1) || batch * ring * tp !== micro * accumulation * gpus) {
    problems.push(`--train.batch_size ${batch} must be a positive multiple of --train.micro_batch_size ${micro} × ${gpus} GPUs (DeepSpeed: train_batch_size = micro_batch_per_gpu × gradient_acc_step × world_size)`);
  }
  if (trainRows !== undefined && !(Math.floor(trainRows / batch) >= 1)) {
    problems.push(`num_update_steps_per_epoch must be positive, got 0: --train.batch_size ${batch} exceeds the ${trainRows} rows of the train split`);
  }
  // The evaluation dataloader: DistributedSampler and StatefulDataLoader with drop_last (openrlhf/utils/distributed_sampler.py).
  if (set.has("--eval.dataset")) {
    const rows = rowsOf("--eval.dataset", "--eval.split");
    if (rows === 0) problems.push("the evaluation split is empty");
    else if (rows !== undefined && rows < micro * dp) {
      problems.push(`the evaluation split has ${rows} rows, fewer than --train.micro_batch_size ${micro} × ${dp} ranks: the evaluation sampler (drop_last) gives each rank none, and train_sft skips the evaluation`);
    }
  }
  problems.push(...sequenceProblem(splits, "--data.max_len", int("--data.max_len"), "SFTDataset drops a row whose prompt reaches max_len - 2 tokens and cuts the others at max_len"));
  return problems;
}

const TRL_SFT = "trl sft";
/** trl/trainer/sft_trainer.py FLASH_ATTENTION_VARIANTS. */
const TRL_FLASH_ATTENTION = ["flash_attention_2", "flash_attention_3", "kernels-community/flash-attn2", "kernels-community/flash-attn3", "kernels-community/vllm-flash-attn3"];
/** HfArgumentParser's string_to_bool. */
const isTrueWord = (text: string) => ["yes", "true", "t", "y", "1"].includes(text.toLowerCase());

/** TRL 1.9.0's `trl sft`: TrlParser options (the rest go to accelerate launch, which refuses them), the accelerate configuration, SFTTrainer's checks. */
export function checkTrlSftCommand(command: string, splits: SftExportedSplits, node = { gpus: TRAINER_NODE_GPUS }): string[] {
  const problems: string[] = [];
  const words = expectPrefix(shellWords(command), ["trl", "sft"], problems);
  const set = parseOptions(words, TRL_SFT_OPTIONS, TRL_SFT, problems);
  const value = (name: string) => valueOf(set, TRL_SFT_OPTIONS, name);
  const on = (name: string) => isTrueWord(value(name));
  if (!set.has("--model_name_or_path")) problems.push("--model_name_or_path is not set");
  if (!set.has("--dataset_name")) problems.push("Either `datasets` or `dataset_name` must be provided.");
  else if (value("--dataset_name") === ".") problems.push(`--dataset_name .: ${DOT_DIRECTORY}`);
  else if (value("--dataset_name") !== EXPORT_DIRECTORY) problems.push(`--dataset_name ${value("--dataset_name")} is not the export directory`);
  // trl/cli/accelerate_config.py: a name is trl/accelerate_configs/<name>.yaml; without one accelerate launch uses the machine's own configuration.
  const release = SFT_TRAINER_RELEASES["trl-sft"];
  if (!set.has("--accelerate_config")) {
    problems.push("--accelerate_config is not set: accelerate launch would take the process count, and so the global batch, from the machine's own configuration");
  } else {
    const name = value("--accelerate_config");
    const config = TRL_ACCELERATE_CONFIGS.get(name);
    if (!config) problems.push(`Accelerate config ${name} is neither a file nor a valid config in the \`trl\` package.`);
    else {
      if (config.numProcesses > node.gpus) problems.push(`--accelerate_config ${name} starts ${config.numProcesses} processes, more than the node's ${node.gpus} GPUs`);
      if (config.requires !== null) {
        const [pkg, min] = config.requires.split(">=") as [string, string];
        const pin = release.requirements.find((p) => p.name === pkg);
        if (!pin || compareVersions(pin.version, min) < 0) problems.push(`--accelerate_config ${name} requires ${config.requires}, and requirements.txt pins ${pin ? `${pkg}==${pin.version}` : `no ${pkg}`}`);
      }
      if (config.distributedType === "DEEPSPEED" && !release.requirements.some((p) => p.name === "deepspeed")) problems.push(`--accelerate_config ${name} runs DeepSpeed, which requirements.txt does not install`);
    }
  }
  // trl/scripts/sft.py: dataset[dataset_train_split], and dataset[dataset_test_split] when eval_strategy is not "no".
  const train = value("--dataset_train_split");
  const test = value("--dataset_test_split");
  const evaluating = (set.get("--eval_strategy")?.[0] ?? "no") !== "no";
  if (!(train in splits.cardSplits)) problems.push(`--dataset_train_split ${train} is not a split of the dataset card`);
  else if (!(splits.rows[splits.cardSplits[train]!]! > 0)) problems.push(`the train split ${train} is empty`);
  if (evaluating) {
    if (!(test in splits.cardSplits)) problems.push(`--dataset_test_split ${test} is not a split of the dataset card (sft.py reads it when eval_strategy is not no)`);
    else if (test === train) problems.push("evaluation during training on the train split");
  }
  // trl/trainer/sft_trainer.py: packing, padding-free training and the loss.
  const packing = on("--packing");
  const strategy = value("--packing_strategy");
  const maxLength = value("--max_length");
  if (packing && maxLength === "None") problems.push("When packing is enabled, `max_length` can't be `None`.");
  const paddingFree = on("--padding_free") || (packing && (strategy === "bfd" || strategy === "bfd_split"));
  if (paddingFree && !packing && maxLength !== "None") problems.push("When `padding_free=True` without packing, `max_length` is not enforced.");
  if (paddingFree && !TRL_FLASH_ATTENTION.includes(value("--attn_implementation"))) {
    problems.push(`--attn_implementation ${value("--attn_implementation")}: padding-free training${packing ? ` (which --packing with strategy ${strategy} forces)` : ""} needs one of ${TRL_FLASH_ATTENTION.join(", ")}; with any other, packed rows attend to each other`);
  }
  if (!on("--assistant_only_loss")) problems.push("--assistant_only_loss is not set: SFTTrainer trains on the whole conversation of a messages dataset, the prompt included");
  if (on("--use_liger_kernel") && value("--loss_type") === "chunked_nll") problems.push("`loss_type='chunked_nll'` is not compatible with `use_liger_kernel=True`.");
  for (const [name, fallback] of [["--per_device_train_batch_size", TRAINING_ARGUMENT_DEFAULTS.per_device_train_batch_size], ["--gradient_accumulation_steps", TRAINING_ARGUMENT_DEFAULTS.gradient_accumulation_steps]] as const) {
    const given = set.has(name) ? Number(set.get(name)![0]) : fallback;
    if (!(Number.isInteger(given) && given >= 1)) problems.push(`${name} ${set.get(name)![0]}: not a positive int`);
  }
  problems.push(...sequenceProblem(splits, "--max_length", Number(maxLength), packing ? "bfd packing discards a longer row's overflow tokens" : "SFTTrainer cuts a longer row to max_length"));
  return problems;
}

/** The global batch a `trl sft` command makes: per-device batch × the accelerate configuration's processes × accumulation steps (NaN when unknown). */
export function trlSftGlobalBatch(command: string): number {
  const words = shellWords(command);
  const after = (flag: string) => (words.includes(flag) ? words[words.indexOf(flag) + 1] : undefined);
  const processes = TRL_ACCELERATE_CONFIGS.get(after("--accelerate_config") ?? "")?.numProcesses ?? NaN;
  const perDevice = Number(after("--per_device_train_batch_size") ?? TRAINING_ARGUMENT_DEFAULTS.per_device_train_batch_size);
  const accumulation = Number(after("--gradient_accumulation_steps") ?? TRAINING_ARGUMENT_DEFAULTS.gradient_accumulation_steps);
  return perDevice * processes * accumulation;
}

/** verl 0.9.0's SFT trainer (torchrun -m verl.trainer.sft_trainer): Hydra overrides `key=value`, MultiTurnSFTDataset, the dataloaders and dynamic batching. */
export function checkVerlSftCommand(command: string, splits: SftExportedSplits): string[] {
  const problems: string[] = [];
  const all = shellWords(command);
  const nproc = /^--nproc_per_node=(\d+)$/.exec(all[3] ?? "");
  const gpus = nproc ? Number(nproc[1]) : NaN;
  const words = expectPrefix(all, ["torchrun", "--standalone", "--nnodes=1", `--nproc_per_node=${nproc?.[1] ?? "N"}`, "-m", "verl.trainer.sft_trainer"], problems);
  const set = new Map<string, string>();
  for (const word of words) {
    const eq = word.indexOf("=");
    if (eq < 1) {
      problems.push(`"${word}" is not a key=value override`);
      continue;
    }
    const key = word.slice(0, eq);
    const text = word.slice(eq + 1);
    if (!VERL_SFT_KEYS.has(key)) {
      problems.push(`${key} is not a key of verl's SFT config (Could not override '${key}': key not in struct)`);
      continue;
    }
    if (set.has(key)) problems.push(`${key} is set twice`);
    set.set(key, text);
    // verl/trainer/sft_trainer.py _init_engine: either frequency may also be "after_each_epoch".
    const type = (key === "trainer.test_freq" || key === "trainer.save_freq") && text === "after_each_epoch" ? "str" : VERL_SFT_TYPES.get(key)!;
    const problem =
      type === "list" ? (/^\[.*\]$/.test(text) ? null : `${key} ${text}: not a list (its default is one)`) : (typeProblem(key, text, type, SFT_FIXTURE_FILES.verlSftKeys) ?? choiceProblem(key, text, VERL_SFT_CHOICES.get(key) ?? null));
    if (problem) problems.push(problem);
  }
  const value = (key: string): unknown => (set.has(key) ? set.get(key) : VERL_SFT_KEYS.get(key));
  const int = (key: string) => Number(value(key));
  const given = (key: string) => value(key) !== null && value(key) !== "null";
  for (const [key, fallback] of VERL_SFT_KEYS) if (fallback === "???" && !set.has(key)) problems.push(`${key} is mandatory (??? in verl's config) and not set`);
  for (const key of ["model.path", "data.train_files"]) if (!set.has(key)) problems.push(`${key} is not set (verl's default is ${JSON.stringify(VERL_SFT_KEYS.get(key))})`);
  if (value("data.messages_key") !== SFT_MESSAGES_KEY) problems.push(`data.messages_key=${String(value("data.messages_key"))} is not the rows' messages column (${SFT_MESSAGES_KEY})`);
  // verl/trainer/sft_trainer.py _build_dataloader: each data-parallel rank takes train_batch_size // dp rows per step, from a
  // DistributedSampler and a StatefulDataLoader that both drop the incomplete rest; fit divides by the number of steps.
  const sp = int("engine.ulysses_sequence_parallel_size");
  const dp = gpus / sp;
  if (!(Number.isInteger(dp) && dp >= 1)) problems.push(`${gpus} GPUs do not make whole Ulysses groups of ${sp}`);
  const batch = int("data.train_batch_size");
  const perRank = Math.floor(batch / dp);
  const batches = (rows: number) => Math.floor(Math.floor(rows / dp) / perRank);
  if (!(perRank >= 1)) problems.push(`data.train_batch_size=${batch} is below the ${dp} data-parallel ranks: each rank's dataloader would get batch_size ${perRank}`);
  else if (batch % dp !== 0) problems.push(`data.train_batch_size=${batch} does not divide by the ${dp} data-parallel ranks: each takes ${perRank} rows, a global batch of ${perRank * dp}`);
  const trainFile = String(value("data.train_files"));
  const trainRows = splits.rows[trainFile];
  if (set.has("data.train_files") && trainRows === undefined) problems.push(`data.train_files=${trainFile} is not a file of the export`);
  if (trainRows !== undefined && perRank >= 1 && !(batches(trainRows) >= 1)) {
    problems.push(`data.train_batch_size=${batch} exceeds the ${trainRows} rows of ${trainFile}: the train dataloader (drop_last) has no batch, and fit divides by its length`);
  }
  const hasVal = given("data.val_files");
  if (hasVal) {
    const file = String(value("data.val_files"));
    const rows = splits.rows[file];
    if (rows === undefined) problems.push(`data.val_files=${file} is not a file of the export`);
    else if (rows === 0) problems.push(`data.val_files=${file} is empty`);
    else if (perRank >= 1 && !(batches(rows) >= 1)) {
      problems.push(`data.val_files=${file} has ${rows} rows, less than one global batch (${batch}): the validation dataloader (the train batch per rank, drop_last) has no batch, and val/loss is the mean of none`);
    }
  }
  const testFreq = String(value("trainer.test_freq"));
  if (!hasVal && (testFreq === "after_each_epoch" || Number(testFreq) > 0)) problems.push(`trainer.test_freq=${testFreq} without data.val_files: fit would iterate a validation dataloader that is None`);
  // verl/workers/engine/utils.py prepare_micro_batches and verl/utils/seqlen_balancing.py rearrange_micro_batches.
  if (String(value("data.use_dynamic_bsz")).toLowerCase() === "true") {
    if (int("data.max_token_len_per_gpu") * sp < int("data.max_length")) {
      problems.push(`max_token_len must be greater than the sequence length: data.max_token_len_per_gpu=${int("data.max_token_len_per_gpu")} is below data.max_length=${int("data.max_length")}`);
    }
  } else if (perRank >= 1 && perRank % int("data.micro_batch_size_per_gpu") !== 0) {
    problems.push(`data size must be divisible by force_group_size * micro_batch_size_per_gpu: ${perRank} rows per rank, data.micro_batch_size_per_gpu=${int("data.micro_batch_size_per_gpu")}`);
  }
  if (String(value("trainer.logger")).includes("wandb")) problems.push("trainer.logger includes wandb: Tracking calls wandb.init, which needs a Weights & Biases account and key");
  problems.push(
    ...sequenceProblem(splits, "data.max_length", int("data.max_length"), value("data.truncation") === "error" ? "data.truncation=error raises on a longer row" : "a longer row is cut"),
  );
  return problems;
}

export function checkSftLaunch(format: string, command: string, splits: SftExportedSplits): string[] {
  switch (format) {
    case "chat-jsonl":
      return checkOpenrlhfSftCommand(command, splits);
    case "trl-sft":
      return checkTrlSftCommand(command, splits);
    case "verl-sft":
      return checkVerlSftCommand(command, splits);
    default:
      return [`unknown SFT format ${format}`];
  }
}
