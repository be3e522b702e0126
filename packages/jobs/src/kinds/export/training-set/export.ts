import { createHash } from "node:crypto";
import { codePointLength, labelRuleKey, labelRuleParamsKey, STEPWISER_JUDGE_PROMPT, type LabelRule } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { OtherRuns } from "../../../runs/run-kind";
import { cardLicense, datasetCard, type CardFeature, type CardSplit } from "./dataset-card";
import { JSONL_KEYS, writeJsonl } from "./jsonl";
import { assertConfidencesStored, countRunLabels, readLabelledChunks, type LabelledChunk } from "./labelled-chunks";
import { launchPlan, type LaunchPlan } from "./launch";
import {
  holdsPlaceholder,
  OPENRLHF_PRM_LAYOUT,
  OPENRLHF_PRM_PLACEHOLDER,
  OPENRLHF_PRM_REWARD_TOKENS,
  OpenrlhfPrmSolution,
  openrlhfPrmRow,
  writeOpenrlhfPrmJsonl,
} from "./openrlhf-prm";
import { isSolutionFormat, parseTrainingSetExportOptions, type TrainingSetExportInput, type TrainingSetExportOptions, type TrainingSetFormat } from "./options";
import { releaseRecord, requirementsTxt, TRAINER_RELEASES } from "./releases";
import { OPENRLHF_REWARD_PY, TRL_REWARD_PY, VERL_REWARD_PY } from "./reward-scripts";
import { trainingRow, type RowContext } from "./rows";
import { emptySplitWarnings, exportSeeds, selectSplits, SPLITS, type SplitName, type SplitSampleReport } from "./split";
import { groupSolutions, PRM_COLUMNS, PRM_EXTRA_INFO_TYPES, prmRow, writePrmJsonl, writePrmParquet, type LabelledSolution } from "./trl-prm";
import { EXTRA_INFO_TYPES, VERL_COLUMNS, writeVerlParquet } from "./verl-parquet";

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
  /** trl-prm: the same rows as JSON lines. */
  jsonlFileName?: string;
  /**
   * The longest prompt written, in Unicode code points (0 for an empty split): the user message; for trl-prm the
   * problem and completions as PRMTrainer joins them; for openrlhf-prm the row's input.
   */
  longestPromptChars: number;
  /** The same prompt's length in UTF-8 bytes: what the launch command's prompt token bound is made from. */
  longestPromptBytes: number;
  /** trl-prm and openrlhf-prm: the step labels inside the rows (`before`/`after` count solutions there). */
  steps?: { positive: number; negative: number };
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
  /** The judge prompt's template id; null for trl-prm and openrlhf-prm, whose rows hold the problem itself. */
  promptTemplate: string | null;
  dataSource: string;
  seed: number;
  /** The seeds actually drawn from, derived from `seed`. */
  seeds: { problems: string; train: string; test: string };
  heldOutFraction: number;
  /** trl-prm and openrlhf-prm: whether each split was balanced by solution (see the procedure). */
  balanceSolutions: boolean;
  filters: { minPromptChars: number | null; maxPromptChars: number | null; measure: string; minConfidence: number | null };
  labelledChunks: number;
  problems: number;
  datasetIds: string[];
  splits: Record<SplitName, TrainingSetSplitReport>;
  /**
   * trl-prm and openrlhf-prm: solutions read from the labels, and those cut short or left out because a chunk has no
   * label under the rule; openrlhf-prm also leaves out those whose text already holds the placeholder token.
   */
  solutions?: { read: number; truncated: number; withoutFirstLabel: number; placeholderInText?: number };
  /** The trainer release the launch command is written for and checked against, with requirements.txt's pins. */
  trainerRelease: ReturnType<typeof releaseRecord>;
  files: Array<{ fileName: string; contentType: string; bytes: number; sha256: string }>;
  layout: { columns?: typeof VERL_COLUMNS; keys?: typeof JSONL_KEYS };
  /** How to start training on these files: the command, the batch sizes chosen from the split sizes, validation on or off. */
  launch: LaunchPlan;
  /** The launch command followed by its notes (the command alone is `launch.command`). */
  usage: string[];
  procedure: string[];
  /** Present when a split is written empty although both were asked for: why, and what would fill it. */
  warnings?: string[];
}

const CONTENT_TYPES = {
  parquet: "application/vnd.apache.parquet",
  jsonl: "application/x-ndjson",
  python: "text/x-python",
  json: "application/json",
  markdown: "text/markdown",
  text: "text/plain",
} as const;

const PROCEDURE = [
  "Every chunk the run labelled under the rule becomes one prompt: the StepWiser judge prompt (problem, the chunks before it, the chunk) as one user message.",
  "Problems are shuffled (sorted ids, seed `<seed>:problems`) and round(heldOutFraction × problems) of them are held out for test (at least 1 when the fraction is positive and there are 2 problems or more); all chunks of a problem go to one split.",
  "In each split, labels whose confidence is below minConfidence (or that have none) are dropped when minConfidence is set; then prompts whose user message is shorter than minPromptChars or longer than maxPromptChars (Unicode code points, bounds inclusive).",
  "Each split is then balanced 50/50: every remaining chunk of the minority class is kept and as many of the majority class are drawn without replacement (seed `<seed>:train` or `<seed>:test`), and the union is shuffled with the same stream. A split where one class has no chunk left is written empty.",
];

/** What differs for trl-prm and openrlhf-prm: rows are solutions, and balancing is by solution. */
const PRM_STEPS = [
  "The chunks the run labelled under the rule are grouped by solution (segmentation): a row is the problem, the solution's chunks from the first up to the first one without a label (a solution whose first chunk has none is left out), and one label per chunk.",
  PROCEDURE[1]!,
  "In each split, solutions with any label below minConfidence (or without one) are dropped when minConfidence is set; then solutions whose text as PRMTrainer joins it (problem and chunks, each followed by a newline) is shorter than minPromptChars or longer than maxPromptChars (Unicode code points, bounds inclusive).",
  "Without balanceSolutions every remaining solution is written, shuffled with seed `<seed>:train` or `<seed>:test`. With it, each split is balanced 50/50 by solution: every remaining solution of the rarer kind is kept and as many of the other drawn without replacement, where a solution is Negative when any of its chunks is labelled Negative and Positive when all are; the union is shuffled with the same stream, and a split where one kind has no solution left is written empty. The step labels inside the rows are never balanced (a Negative solution usually holds Positive steps before its first Negative one).",
];
const PRM_PROCEDURE = PRM_STEPS;
const OPENRLHF_PRM_PROCEDURE = [
  PRM_STEPS[0]!.replace("(a solution whose first chunk has none is left out)", "(a solution whose first chunk has none is left out, and so is one whose problem or chunks already hold the placeholder token)"),
  PRM_STEPS[1]!,
  PRM_STEPS[2]!.replace("whose text as PRMTrainer joins it (problem and chunks, each followed by a newline)", "whose input (the problem, then each chunk followed by the placeholder, one per line)"),
  PRM_STEPS[3]!,
];

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8");

/** The longer of two prompt lengths, each in code points and in UTF-8 bytes (they may come from different prompts). */
function longerPrompt(current: { longestPromptChars: number; longestPromptBytes: number }, text: string) {
  return { longestPromptChars: Math.max(current.longestPromptChars, codePointLength(text)), longestPromptBytes: Math.max(current.longestPromptBytes, utf8Length(text)) };
}

function longestPrompt(texts: readonly string[]) {
  return texts.reduce(longerPrompt, { longestPromptChars: 0, longestPromptBytes: 0 });
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
  runs: OtherRuns,
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

  const params = labelRuleParamsKey(labelRule);
  const files: ExportedFile[] = [];
  const splits = {} as Record<SplitName, TrainingSetSplitReport>;
  let solutionsReport: TrainingSetReport["solutions"];
  const stepCounts = (items: readonly LabelledSolution[]) => {
    const steps = { positive: 0, negative: 0 };
    for (const item of items) for (const step of item.steps) steps[step.label === "Positive" ? "positive" : "negative"] += 1;
    return steps;
  };
  if (format === "trl-prm") {
    const grouping = groupSolutions(chunks);
    solutionsReport = { read: grouping.solutions.length, truncated: grouping.truncated, withoutFirstLabel: grouping.withoutFirstLabel };
    const selection = selectSplits(grouping.solutions, { ...options, balance: options.balanceSolutions });
    const parquet: ExportedFile[] = [];
    const jsonl: ExportedFile[] = [];
    for (const split of SPLITS) {
      const items: LabelledSolution[] = selection[split].items;
      const context = { split, runId, rule: labelRule.rule, params };
      const rowAt = (index: number) => prmRow(items[index]!, index, context);
      parquet.push(file(`${split}.parquet`, CONTENT_TYPES.parquet, await writePrmParquet(items.length, rowAt)));
      jsonl.push(file(`${split}.jsonl`, CONTENT_TYPES.jsonl, writePrmJsonl(items.length, rowAt)));
      splits[split] = {
        problems: selection[split].problems,
        rows: items.length,
        fileName: `${split}.parquet`,
        jsonlFileName: `${split}.jsonl`,
        ...longestPrompt(items.map((item) => item.prompt)),
        steps: stepCounts(items),
        ...selection[split].report,
      };
    }
    files.push(...parquet, ...jsonl);
  } else if (format === "openrlhf-prm") {
    const grouping = groupSolutions(chunks);
    const solutions = grouping.solutions.map((solution) => new OpenrlhfPrmSolution(solution.steps));
    const clean = solutions.filter((solution) => !holdsPlaceholder(solution.problem) && !solution.completions.some(holdsPlaceholder));
    solutionsReport = { read: solutions.length, truncated: grouping.truncated, withoutFirstLabel: grouping.withoutFirstLabel, placeholderInText: solutions.length - clean.length };
    const selection = selectSplits(clean, { ...options, balance: options.balanceSolutions });
    for (const split of SPLITS) {
      const items: OpenrlhfPrmSolution[] = selection[split].items;
      const context = { split, runId, rule: labelRule.rule, params };
      const fileName = `${split}.jsonl`;
      files.push(file(fileName, CONTENT_TYPES.jsonl, writeOpenrlhfPrmJsonl(items.length, (index) => openrlhfPrmRow(items[index]!, index, context))));
      splits[split] = {
        problems: selection[split].problems,
        rows: items.length,
        fileName,
        ...longestPrompt(items.map((item) => item.prompt)),
        steps: stepCounts(items),
        ...selection[split].report,
      };
    }
  } else {
    const selection = selectSplits(chunks, options);
    const extension = format === "verl" ? "parquet" : "jsonl";
    for (const split of SPLITS) {
      const items: LabelledChunk[] = selection[split].items;
      const context: RowContext = { split, runId, rule: labelRule.rule, params };
      let longest = { longestPromptChars: 0, longestPromptBytes: 0 };
      const rowAt = (index: number) => {
        const row = trainingRow(items[index]!, index, context);
        longest = longerPrompt(longest, row.prompt[0]!.content);
        return row;
      };
      const fileName = `${split}.${extension}`;
      files.push(
        format === "verl"
          ? file(fileName, CONTENT_TYPES.parquet, await writeVerlParquet(items.length, rowAt, options.dataSource))
          : file(fileName, CONTENT_TYPES.jsonl, writeJsonl(items.length, rowAt)),
      );
      splits[split] = { problems: selection[split].problems, rows: items.length, fileName, ...longest, ...selection[split].report };
    }
    files.push(
      format === "verl"
        ? file("reward.py", CONTENT_TYPES.python, VERL_REWARD_PY)
        : file("reward_func.py", CONTENT_TYPES.python, format === "openrlhf" ? OPENRLHF_REWARD_PY : TRL_REWARD_PY),
    );
  }

  const warnings = emptySplitWarnings({
    heldOutFraction: options.heldOutFraction,
    trainProblems: splits.train.problems,
    testProblems: splits.test.problems,
    trainRows: splits.train.rows,
    testRows: splits.test.rows,
  });
  const launch = launchPlan({
    format,
    trainRows: splits.train.rows,
    testRows: splits.test.rows,
    maxResponseTokens: options.maxResponseTokens,
    maxPromptBytes: Math.max(splits.train.longestPromptBytes, splits.test.longestPromptBytes),
  });
  const release = TRAINER_RELEASES[format];
  files.push(file("requirements.txt", CONTENT_TYPES.text, requirementsTxt(release)));
  const procedure = format === "trl-prm" ? PRM_PROCEDURE : format === "openrlhf-prm" ? OPENRLHF_PRM_PROCEDURE : PROCEDURE;
  const datasetIds = [...new Set(chunks.map((chunk) => chunk.datasetId))].sort();
  const seeds = exportSeeds(options.seed);
  files.push(
    file("README.md", CONTENT_TYPES.markdown, await datasetCardFor(db, runs, { options, splits, launch, procedure, datasetIds, seeds, otherFiles: [...files.map((f) => f.fileName).filter((n) => !Object.values(splits).some((s) => s.fileName === n)), "manifest.json"] })),
  );
  const report: TrainingSetReport = {
    format,
    annotateRunId: runId,
    labelRule,
    labelRuleKey: labelRuleKey(labelRule),
    params,
    promptTemplate: isSolutionFormat(format) ? null : STEPWISER_JUDGE_PROMPT.id,
    dataSource: options.dataSource,
    seed: options.seed,
    seeds,
    heldOutFraction: options.heldOutFraction,
    balanceSolutions: options.balanceSolutions,
    filters: {
      minPromptChars: options.minPromptChars ?? null,
      maxPromptChars: options.maxPromptChars ?? null,
      measure:
        format === "trl-prm"
          ? "Unicode code points of the problem and completions as PRMTrainer joins them"
          : format === "openrlhf-prm"
            ? "Unicode code points of the row's input (problem, chunks and placeholders)"
            : "Unicode code points of the rendered user message",
      minConfidence: options.minConfidence ?? null,
    },
    labelledChunks: chunks.length,
    problems: splits.train.problems + splits.test.problems,
    datasetIds,
    splits,
    ...(solutionsReport ? { solutions: solutionsReport } : {}),
    trainerRelease: releaseRecord(release),
    files: files.map((f) => ({ fileName: f.fileName, contentType: f.contentType, bytes: f.content.length, sha256: createHash("sha256").update(f.content).digest("hex") })),
    layout: format === "verl" ? { columns: VERL_COLUMNS } : format === "trl-prm" ? { columns: PRM_COLUMNS } : format === "openrlhf-prm" ? { keys: OPENRLHF_PRM_LAYOUT } : { keys: JSONL_KEYS },
    launch,
    usage: [...(launch.command !== null ? [launch.command] : []), ...launch.notes],
    procedure,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  files.push(file("manifest.json", CONTENT_TYPES.json, `${JSON.stringify(report, null, 2)}\n`));
  return { files, report };
}

const MESSAGES: CardFeature = { list: { struct: [["role", { dtype: "string" }], ["content", { dtype: "string" }]] } };

/** extra_info as each file types it: Parquet keeps chunk_index as int32, JSON integers load as int64. */
function extraInfoFeature(integers: "parquet" | "json"): CardFeature {
  const dtype = (type: string): CardFeature => ({ dtype: type === "double" ? "float64" : type === "int32" && integers === "json" ? "int64" : (type as "string" | "int32" | "int64") });
  return { struct: Object.entries(EXTRA_INFO_TYPES).map(([key, [, type]]): [string, CardFeature] => [key, dtype(type)]) };
}

/** The columns each format writes, in the dataset card's notation. */
export function cardFeatures(format: TrainingSetFormat): Array<[string, CardFeature]> {
  switch (format) {
    case "verl":
      return [
        ["data_source", { dtype: "string" }],
        ["prompt", MESSAGES],
        ["ability", { dtype: "string" }],
        ["reward_model", { struct: [["style", { dtype: "string" }], ["ground_truth", { dtype: "string" }]] }],
        ["extra_info", extraInfoFeature("parquet")],
      ];
    case "openrlhf":
    case "trl":
      return [
        ["prompt", MESSAGES],
        ["label", { dtype: "string" }],
        ["extra_info", extraInfoFeature("json")],
      ];
    case "trl-prm":
      return [
        ["prompt", { dtype: "string" }],
        ["completions", { list: { dtype: "string" } }],
        ["labels", { list: { dtype: "bool" } }],
        ["extra_info", { struct: PRM_EXTRA_INFO_TYPES.map(([key, dtype]): [string, CardFeature] => [key, { dtype }]) }],
      ];
    case "openrlhf-prm":
      return [
        ["input", { dtype: "string" }],
        ["label", { list: { dtype: "string" } }],
        ["extra_info", { struct: PRM_EXTRA_INFO_TYPES.map(([key, dtype]): [string, CardFeature] => [key, { dtype }]) }],
      ];
  }
}

const TRAINER_TITLES: Record<TrainingSetFormat, string> = {
  verl: "verl RL prompts",
  openrlhf: "OpenRLHF RL prompts",
  trl: "TRL GRPO prompts",
  "trl-prm": "TRL stepwise supervision",
  "openrlhf-prm": "OpenRLHF process reward",
};

const CHUNK_ROW = "one labelled chunk: the StepWiser judge prompt (problem, the chunks before it, the chunk) and the chunk's label as the ground truth";

const ROW_UNITS: Record<TrainingSetFormat, string> = {
  verl: CHUNK_ROW,
  openrlhf: CHUNK_ROW,
  trl: CHUNK_ROW,
  "trl-prm":
    "one solution: the problem as `prompt`, its chunks as `completions` and one boolean label per chunk (true = Positive); `train.jsonl`/`test.jsonl` hold the same rows as JSON lines",
  "openrlhf-prm": `one solution: \`input\` is the problem, then each chunk followed by the placeholder token \`${OPENRLHF_PRM_PLACEHOLDER}\` on a line of its own, and \`label\` one reward token per chunk (\`${OPENRLHF_PRM_REWARD_TOKENS[0]}\` Positive, \`${OPENRLHF_PRM_REWARD_TOKENS[1]}\` Negative)`,
};

async function datasetCardFor(
  db: Db,
  runs: OtherRuns,
  input: {
    options: TrainingSetExportOptions;
    splits: Record<SplitName, TrainingSetSplitReport>;
    launch: LaunchPlan;
    procedure: string[];
    datasetIds: string[];
    seeds: Record<string, string>;
    otherFiles: string[];
  },
): Promise<string> {
  const { options, splits } = input;
  const run = await db.run.findUniqueOrThrow({ where: { id: options.annotateRunId }, select: { id: true, kind: true, name: true, config: true } });
  const datasets = await db.dataset.findMany({ where: { id: { in: input.datasetIds } }, select: { id: true, name: true, source: true, license: true }, orderBy: { id: "asc" } });
  const source = runs.provenance(run);
  const license = cardLicense(datasets.map((d) => d.license));
  const prm = isSolutionFormat(options.format);
  const cardSplits: CardSplit[] = SPLITS.map((name) => ({
    name,
    fileName: splits[name].fileName,
    rows: splits[name].rows,
    positive: splits[name].after.positive,
    negative: splits[name].after.negative,
    ...(splits[name].steps ? { steps: splits[name].steps } : {}),
    problems: splits[name].problems,
  }));
  const filters = [
    options.minConfidence !== undefined ? `Minimum label confidence ${options.minConfidence}` : "No confidence filter",
    options.minPromptChars !== undefined || options.maxPromptChars !== undefined
      ? `Length bounds ${options.minPromptChars ?? 0} to ${options.maxPromptChars ?? "∞"} code points`
      : "No length filter",
  ];
  return datasetCard({
    title: `StepWiser ${TRAINER_TITLES[options.format]} · ${labelRuleKey(options.labelRule)} · run ${run.id}`,
    format: options.format,
    taskCategory: prm ? "token-classification" : "text-generation",
    license: license.license,
    licenseNote: license.note,
    rowUnit: ROW_UNITS[options.format],
    features: cardFeatures(options.format),
    splits: cardSplits,
    otherFiles: input.otherFiles,
    provenance: {
      run: { id: run.id, name: source.name, kind: run.kind, seed: source.seed, details: source.details },
      datasets,
      labelRuleKey: labelRuleKey(options.labelRule),
      params: labelRuleParamsKey(options.labelRule),
      promptTemplate: prm ? null : STEPWISER_JUDGE_PROMPT.id,
      seed: options.seed,
      seeds: input.seeds,
      heldOutFraction: options.heldOutFraction,
      filters,
      procedure: input.procedure,
    },
    launch: input.launch,
    release: TRAINER_RELEASES[options.format],
  });
}
