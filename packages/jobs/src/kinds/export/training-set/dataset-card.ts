import type { LaunchPlan } from "./launch";
import type { TrainerRelease } from "./releases";
import type { SplitName } from "./split";

/**
 * The README.md written beside every training set: a Hugging Face dataset card.
 * Its YAML header is what the Hub and `datasets.load_dataset(<directory>)` read
 * (`configs[].data_files` names each split's file; `dataset_info.features` gives
 * the columns' types, so a loader casts to exactly what was written); the
 * Markdown body says where the rows come from. Every string scalar in the header
 * is written as a JSON string, which is valid YAML whatever it holds.
 */

/** A column's type in the card's `dataset_info.features` notation. */
export type CardFeature = { dtype: "string" | "bool" | "int32" | "int64" | "float64" } | { list: CardFeature } | { struct: Array<[string, CardFeature]> };

/** The Hub's size buckets, by total rows (its `size_categories` values). */
const SIZE_BUCKETS: Array<[number, string]> = [
  [1e3, "n<1K"],
  [1e4, "1K<n<10K"],
  [1e5, "10K<n<100K"],
  [1e6, "100K<n<1M"],
  [1e7, "1M<n<10M"],
  [1e8, "10M<n<100M"],
  [1e9, "100M<n<1B"],
  [1e10, "1B<n<10B"],
  [1e11, "10B<n<100B"],
  [1e12, "100B<n<1T"],
];

export function sizeCategory(rows: number): string {
  for (const [below, name] of SIZE_BUCKETS) if (rows < below) return name;
  return "n>1T";
}

export interface CardSplit {
  name: SplitName;
  fileName: string;
  rows: number;
  /** Rows of each class (chunk labels, or for stepwise supervision solutions with and without a Negative step). */
  positive: number;
  negative: number;
  /** Stepwise supervision: the labels inside the rows. */
  steps?: { positive: number; negative: number };
  problems: number;
}

export interface DatasetCardInput {
  title: string;
  format: string;
  taskCategory: "text-generation" | "token-classification";
  /** A Hub license id of the source data when all of it has one; else "other" or "unknown". */
  license: string;
  licenseNote: string;
  /** What one row is. */
  rowUnit: string;
  features: Array<[string, CardFeature]>;
  splits: CardSplit[];
  /** Files written besides the splits (reward file, manifest). */
  otherFiles: string[];
  provenance: {
    run: { id: string; name: string; kind: string; seed: number | null; details: string[] };
    datasets: Array<{ id: string; name: string; source: string; license: string | null }>;
    labelRuleKey: string;
    params: string;
    promptTemplate: string | null;
    seed: number;
    seeds: Record<string, string>;
    heldOutFraction: number;
    filters: string[];
    procedure: string[];
  };
  launch: LaunchPlan;
  /** The trainer release the launch command is written for, and requirements.txt's pins. */
  release?: TrainerRelease;
}

const q = (text: string) => JSON.stringify(text);

function featureYaml(name: string, feature: CardFeature, indent: string): string[] {
  const head = `${indent}- name: ${q(name)}`;
  return [head, ...featureBody(feature, `${indent}  `)];
}

function featureBody(feature: CardFeature, indent: string): string[] {
  if ("dtype" in feature) return [`${indent}dtype: ${feature.dtype}`];
  if ("list" in feature) {
    const item = feature.list;
    if ("dtype" in item) return [`${indent}list: ${item.dtype}`];
    if ("struct" in item) return [`${indent}list:`, ...item.struct.flatMap(([name, f]) => featureYaml(name, f, indent))];
    return [`${indent}list:`, ...featureBody(item, `${indent}  `)];
  }
  return [`${indent}struct:`, ...feature.struct.flatMap(([name, f]) => featureYaml(name, f, indent))];
}

/** The card's splits: only those with rows, since a loader cannot read a split from an empty JSON file. */
export function cardSplits(splits: readonly CardSplit[]): CardSplit[] {
  return splits.filter((split) => split.rows > 0);
}

/** What the card's YAML header is made of. */
export type CardHeaderInput = Pick<DatasetCardInput, "title" | "format" | "taskCategory" | "license" | "features"> & {
  splits: ReadonlyArray<Pick<CardSplit, "name" | "fileName" | "rows">>;
  /** Hub tags besides the format (default: process-supervision). */
  tags?: string[];
};

export function datasetCardHeader(input: CardHeaderInput): string {
  const splits = input.splits.filter((split) => split.rows > 0);
  const total = splits.reduce((n, split) => n + split.rows, 0);
  const lines = [
    "---",
    `license: ${q(input.license)}`,
    "task_categories:",
    `- ${input.taskCategory}`,
    "tags:",
    ...(input.tags ?? ["process-supervision"]).map((tag) => `- ${q(tag)}`),
    `- ${q(input.format)}`,
    "size_categories:",
    `- ${q(sizeCategory(total))}`,
    `pretty_name: ${q(input.title)}`,
    "configs:",
    "- config_name: default",
    "  data_files:",
    ...splits.flatMap((split) => [`  - split: ${split.name}`, `    path: ${q(split.fileName)}`]),
    "dataset_info:",
    "  features:",
    ...input.features.flatMap(([name, feature]) => featureYaml(name, feature, "  ")),
    "  splits:",
    ...splits.flatMap((split) => [`  - name: ${split.name}`, `    num_examples: ${split.rows}`]),
    "---",
  ];
  return `${lines.join("\n")}\n`;
}

const md = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

export function datasetCard(input: DatasetCardInput): string {
  const { provenance: p, launch } = input;
  const body = [
    `# ${md(input.title)}`,
    "",
    `Written by StepWiser Studio's training-set export (format \`${input.format}\`). One row is ${input.rowUnit}.`,
    "",
    "## Splits",
    "",
    input.splits.some((s) => s.steps)
      ? "| split | file | rows | problems | solutions without a Negative step | solutions with one | Positive steps | Negative steps |"
      : "| split | file | rows | problems | Positive | Negative |",
    `|---|---|---|---|---|---|${input.splits.some((s) => s.steps) ? "---|---|" : ""}`,
    ...input.splits.map(
      (s) => `| ${s.name} | ${s.fileName} | ${s.rows} | ${s.problems} | ${s.positive} | ${s.negative} |${s.steps ? ` ${s.steps.positive} | ${s.steps.negative} |` : ""}`,
    ),
    "",
    ...(input.splits.some((s) => s.rows === 0) ? ["A split with no rows is written as an empty file and left out of the `configs` above, so `datasets.load_dataset` does not try to read it.", ""] : []),
    "## Columns",
    "",
    ...input.features.map(([name]) => `- \`${name}\``),
    "",
    "## Provenance",
    "",
    `- Labels from run \`${p.run.id}\` (${p.run.kind}): ${md(p.run.name)}${p.run.seed !== null ? `, seed ${p.run.seed}` : ""}`,
    ...p.run.details.map((detail) => `  - ${md(detail)}`),
    ...p.datasets.map((d) => `- Dataset \`${d.id}\`: ${md(d.name)} (source: ${md(d.source)}; license: ${md(d.license ?? "not recorded")})`),
    `- Label rule \`${p.labelRuleKey}\`, parameters \`${p.params}\``,
    ...(p.promptTemplate ? [`- Prompt template \`${p.promptTemplate}\``] : []),
    `- Export seed ${p.seed}; derived seeds ${Object.entries(p.seeds).map(([k, v]) => `${k} \`${v}\``).join(", ")}; held-out fraction ${p.heldOutFraction}`,
    ...p.filters.map((filter) => `- ${md(filter)}`),
    "",
    "How the rows were chosen:",
    "",
    ...p.procedure.map((step, i) => `${i + 1}. ${md(step)}`),
    "",
    "## License",
    "",
    input.licenseNote,
    "",
    ...trainingSection(launch),
    ...(input.release ? releaseSection(input.release) : []),
    `Other files: ${input.otherFiles.map((f) => `\`${f}\``).join(", ")}.`,
  ];
  return `${datasetCardHeader(input)}\n${body.join("\n")}\n`;
}

/** How to start training: the launch command and its notes, or the notes saying why there is none. */
export function trainingSection(launch: LaunchPlan): string[] {
  return [
    "## Training",
    "",
    ...(launch.command === null
      ? launch.notes
      : [`${launch.trainer}, from this directory:`, "", `\`\`\`${launch.language === "shell" ? "bash" : "python"}`, launch.command, "```", "", ...launch.notes.map((note) => `- ${note}`)]),
    "",
  ];
}

/** The release the command is written for and the pins of requirements.txt, each with where the release states it. */
export function releaseSection(release: TrainerRelease): string[] {
  return [
    "## Trainer release",
    "",
    `Written for and checked against ${release.trainer} ${release.release} (\`${release.repository}\`, tag \`${release.tag}\`, commit \`${release.sourceCommit}\`). \`requirements.txt\` pins:`,
    "",
    ...release.requirements.map((pin) => `- \`${pin.name}==${pin.version}\`: ${md(pin.source)}`),
    "",
    ...release.notes.map((note) => md(note)).flatMap((note) => [note, ""]),
  ];
}

/** License ids the Hub knows (a subset of its list), the ones source datasets of math solutions commonly carry. */
const HUB_LICENSES = new Set([
  "apache-2.0",
  "mit",
  "bsd-2-clause",
  "bsd-3-clause",
  "cc0-1.0",
  "cc-by-3.0",
  "cc-by-4.0",
  "cc-by-sa-3.0",
  "cc-by-sa-4.0",
  "cc-by-nc-4.0",
  "cc-by-nc-sa-4.0",
  "cc-by-nc-nd-4.0",
  "gpl-3.0",
  "lgpl-3.0",
  "odc-by",
  "odbl",
  "pddl",
]);

/**
 * The card's license: the source datasets' one when they all carry the same license
 * and it is one of the Hub's ids; "unknown" when none is recorded; else "other",
 * with the recorded licenses named in the card's body.
 */
export function cardLicense(licenses: ReadonlyArray<string | null>): { license: string; note: string } {
  const distinct = [...new Set(licenses.map((l) => l?.trim() || null))];
  if (distinct.length === 1 && distinct[0] === null) {
    return { license: "unknown", note: "No license is recorded for the source dataset; the problems and solutions are under whatever terms their source gives." };
  }
  const ids = [...new Set(distinct.map((l) => l?.toLowerCase() ?? null))];
  const only = ids.length === 1 ? ids[0]! : null;
  if (only !== null && HUB_LICENSES.has(only)) {
    return { license: only, note: `The source dataset's license: ${distinct.join(", ")}. The prompts and labels derive from its problems and solutions.` };
  }
  return { license: "other", note: `The source datasets' licenses as recorded: ${distinct.map((l) => l ?? "not recorded").join("; ")}. The rows derive from their problems and solutions.` };
}
