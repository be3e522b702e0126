import { createHash } from "node:crypto";
import { Bool, Field, Float64, List, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray, type DataType } from "apache-arrow";
import { shuffle } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { OtherRuns } from "../../../runs/run-kind";
import { cardLicense, datasetCardHeader, releaseSection, trainingSection, type CardFeature } from "../training-set/dataset-card";
import { releaseRecord, requirementsTxt } from "../training-set/releases";
import { emptySplitWarnings, exportSeeds, splitProblems, SPLITS, type SplitName } from "../training-set/split";
import { writeParquet } from "../training-set/verl-parquet";
import type { ExportedFile } from "../training-set/export";
import { sftLaunchPlan, SFT_TRAINER_RELEASES } from "./launch";
import type { SftFormat } from "./options";
import type { SegmentationSftRow, SelectionRow, SftRow } from "./rows";

export type SftExportKind = "segmentation-sft" | "selection";

const CONTENT_TYPES = { parquet: "application/vnd.apache.parquet", jsonl: "application/x-ndjson", json: "application/json", markdown: "text/markdown", text: "text/plain" } as const;

const nullable = (name: string, type: DataType) => new Field(name, type, true);
const MESSAGES_TYPE = new List(nullable("element", new Struct([nullable("role", new Utf8()), nullable("content", new Utf8())])));

/** The columns of each export's rows, in order: Arrow types for Parquet, card features for the dataset card. */
const COLUMNS: Record<SftExportKind, Array<{ name: string; arrow: DataType; feature: CardFeature; description: string }>> = {
  "segmentation-sft": [
    { name: "messages", arrow: MESSAGES_TYPE, feature: { list: { struct: [["role", { dtype: "string" }], ["content", { dtype: "string" }]] } }, description: "the policy prompt with the problem (user), the chunk-tagged response (assistant)" },
    { name: "problem_id", arrow: new Utf8(), feature: { dtype: "string" }, description: "Problem id; a problem's rows are all in one split" },
    { name: "solution_id", arrow: new Utf8(), feature: { dtype: "string" }, description: "Solution id" },
    { name: "original", arrow: new Utf8(), feature: { dtype: "string" }, description: "the response without tags: the text the chunks reconstruct exactly" },
    { name: "correct", arrow: new Bool(), feature: { dtype: "bool" }, description: "whether the final answer is correct (null: not graded)" },
  ],
  selection: [
    { name: "problem_id", arrow: new Utf8(), feature: { dtype: "string" }, description: "Problem id" },
    { name: "solution_id", arrow: new Utf8(), feature: { dtype: "string" }, description: "the selected response's solution id" },
    { name: "messages", arrow: MESSAGES_TYPE, feature: { list: { struct: [["role", { dtype: "string" }], ["content", { dtype: "string" }]] } }, description: "the policy prompt with the problem (user), the selected chunk-tagged response (assistant)" },
    { name: "score", arrow: new Float64(), feature: { dtype: "float64" }, description: "the selected response's aggregate chunk score" },
    {
      name: "candidates",
      arrow: new List(nullable("element", new Struct([nullable("solution_id", new Utf8()), nullable("correct", new Bool()), nullable("score", new Float64())]))),
      feature: { list: { struct: [["solution_id", { dtype: "string" }], ["correct", { dtype: "bool" }], ["score", { dtype: "float64" }]] } },
      description: "every response of the problem: its solution id, whether its final answer is correct, its aggregate score (null: no chunk judged)",
    },
  ],
};

/** A row as written: only the documented keys, in the documented order. */
function rowObject(kind: SftExportKind, row: SftRow): Record<string, unknown> {
  if (kind === "segmentation-sft") {
    const r = row as SegmentationSftRow;
    return { messages: r.messages, problem_id: r.problem_id, solution_id: r.solution_id, original: r.original, correct: r.correct };
  }
  const r = row as SelectionRow;
  return { problem_id: r.problem_id, solution_id: r.solution_id, messages: r.messages, score: r.score, candidates: r.candidates };
}

/** A score as a JSON float: `1.0`, not `1` (null stays null). */
const float = (value: number | null) => (value === null ? "null" : Number.isInteger(value) ? value.toFixed(1) : JSON.stringify(value));

/**
 * One JSON line. A selection row's scores are always written as floats: `datasets` infers a
 * JSON file's column types from its first block alone, so a file whose first scores are whole
 * numbers would be typed int64 and refuse the fractions after them.
 */
export function jsonLine(kind: SftExportKind, row: SftRow): string {
  if (kind === "segmentation-sft") return `${JSON.stringify(rowObject(kind, row))}\n`;
  const r = row as SelectionRow;
  const candidates = r.candidates.map((c) => `{"solution_id":${JSON.stringify(c.solution_id)},"correct":${JSON.stringify(c.correct)},"score":${float(c.score)}}`).join(",");
  return `{"problem_id":${JSON.stringify(r.problem_id)},"solution_id":${JSON.stringify(r.solution_id)},"messages":${JSON.stringify(r.messages)},"score":${float(r.score)},"candidates":[${candidates}]}\n`;
}

async function writeRows(kind: SftExportKind, format: SftFormat, rows: readonly SftRow[]): Promise<Uint8Array> {
  if (format !== "verl-sft") return new TextEncoder().encode(rows.map((row) => jsonLine(kind, row)).join(""));
  const columns = COLUMNS[kind];
  const fields = columns.map((c) => nullable(c.name, c.arrow));
  const schema = new Schema(fields);
  return writeParquet(schema, rows.length, (i) => rowObject(kind, rows[i]!), (batch) => {
    const children = columns.map((c) => vectorFromArray(batch.map((row) => row[c.name]), c.arrow).data[0]!);
    return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.length, nullCount: 0, children }));
  });
}

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8");

export interface SftSplitReport {
  fileName: string;
  rows: number;
  problems: number;
}

export interface SftExportInput {
  kind: SftExportKind;
  format: SftFormat;
  runId: string;
  seed: number;
  heldOutFraction: number;
  rows: SftRow[];
  datasetIds: string[];
  title: string;
  /** What one row is, and how the rows were chosen, for the card and the manifest. */
  rowUnit: string;
  procedure: string[];
  /** The export's own facts for the manifest (options, counts, statistics). */
  report: Record<string, unknown>;
}

/**
 * Writes an SFT export's files: a train and a test split (held out by problem, rows
 * shuffled with the split's seed), requirements.txt pinning the trainer the format
 * names, a dataset card and manifest.json with the launch command.
 */
export async function writeSftExport(db: Db, runs: OtherRuns, input: SftExportInput): Promise<{ files: ExportedFile[]; report: Record<string, unknown> }> {
  const seeds = exportSeeds(input.seed);
  const problems = splitProblems(input.rows.map((r) => r.problem_id), input.heldOutFraction, seeds.problems);
  const extension = input.format === "verl-sft" ? "parquet" : "jsonl";
  const files: ExportedFile[] = [];
  const splits = {} as Record<SplitName, SftSplitReport>;
  let maxSequenceBytes = 0;
  for (const split of SPLITS) {
    const rows = shuffle(input.rows.filter((r) => problems[split].has(r.problem_id)), seeds[split]);
    for (const row of rows) maxSequenceBytes = Math.max(maxSequenceBytes, utf8Length(row.messages[0].content) + utf8Length(row.messages[1].content));
    const fileName = `${split}.${extension}`;
    files.push({ fileName, contentType: extension === "parquet" ? CONTENT_TYPES.parquet : CONTENT_TYPES.jsonl, content: await writeRows(input.kind, input.format, rows) });
    splits[split] = { fileName, rows: rows.length, problems: new Set(rows.map((r) => r.problem_id)).size };
  }
  const warnings = emptySplitWarnings({
    heldOutFraction: input.heldOutFraction,
    trainProblems: problems.train.size,
    testProblems: problems.test.size,
    trainRows: splits.train.rows,
    testRows: splits.test.rows,
  });
  const launch = sftLaunchPlan({ format: input.format, trainRows: splits.train.rows, testRows: splits.test.rows, maxSequenceBytes });
  const release = SFT_TRAINER_RELEASES[input.format];
  files.push({ fileName: "requirements.txt", contentType: CONTENT_TYPES.text, content: new TextEncoder().encode(requirementsTxt(release)) });
  const run = await db.run.findUniqueOrThrow({ where: { id: input.runId }, select: { id: true, kind: true, name: true, config: true } });
  const datasets = await db.dataset.findMany({ where: { id: { in: input.datasetIds } }, select: { id: true, name: true, source: true, license: true }, orderBy: { id: "asc" } });
  const source = runs.provenance(run);
  const license = cardLicense(datasets.length > 0 ? datasets.map((d) => d.license) : [null]);
  const columns = COLUMNS[input.kind];
  const card = sftCard({ ...input, splits, launch, release, license, source, datasets, columns, seeds });
  files.push({ fileName: "README.md", contentType: CONTENT_TYPES.markdown, content: new TextEncoder().encode(card) });
  const report = {
    kind: input.kind,
    format: input.format,
    runId: input.runId,
    seed: input.seed,
    seeds,
    heldOutFraction: input.heldOutFraction,
    ...input.report,
    procedure: input.procedure,
    datasetIds: input.datasetIds,
    splits,
    columns: columns.map((c) => ({ name: c.name, description: c.description })),
    trainerRelease: releaseRecord(release),
    files: files.map((f) => ({ fileName: f.fileName, contentType: f.contentType, bytes: f.content.length, sha256: createHash("sha256").update(f.content).digest("hex") })),
    launch,
    usage: [...(launch.command !== null ? [launch.command] : []), ...launch.notes],
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  files.push({ fileName: "manifest.json", contentType: CONTENT_TYPES.json, content: new TextEncoder().encode(`${JSON.stringify(report, null, 2)}\n`) });
  return { files, report };
}

const md = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function sftCard(input: SftExportInput & {
  splits: Record<SplitName, SftSplitReport>;
  launch: ReturnType<typeof sftLaunchPlan>;
  release: (typeof SFT_TRAINER_RELEASES)[SftFormat];
  license: { license: string; note: string };
  source: { name: string; seed: number | null; details: string[] };
  datasets: Array<{ id: string; name: string; source: string; license: string | null }>;
  columns: (typeof COLUMNS)[SftExportKind];
  seeds: Record<string, string>;
}): string {
  const header = datasetCardHeader({
    title: input.title,
    format: input.format,
    taskCategory: "text-generation",
    license: input.license.license,
    features: input.columns.map((c): [string, CardFeature] => [c.name, c.feature]),
    splits: SPLITS.map((name) => ({ name, fileName: input.splits[name].fileName, rows: input.splits[name].rows })),
    tags: [input.kind === "selection" ? "rejection-sampling" : "self-segmentation", "chunks-of-thought"],
  });
  const { launch, release } = input;
  const body = [
    `# ${md(input.title)}`,
    "",
    `Written by StepWiser Studio's ${input.kind} export (format \`${input.format}\`). One row is ${input.rowUnit}.`,
    "",
    "## Splits",
    "",
    "| split | file | rows | problems |",
    "|---|---|---|---|",
    ...SPLITS.map((name) => `| ${name} | ${input.splits[name].fileName} | ${input.splits[name].rows} | ${input.splits[name].problems} |`),
    "",
    ...(SPLITS.some((name) => input.splits[name].rows === 0) ? ["A split with no rows is written as an empty file and left out of the `configs` above.", ""] : []),
    "## Columns",
    "",
    ...input.columns.map((c) => `- \`${c.name}\`: ${md(c.description)}`),
    "",
    "## Provenance",
    "",
    `- Rows from run \`${input.runId}\`: ${md(input.source.name)}${input.source.seed !== null ? `, seed ${input.source.seed}` : ""}`,
    ...input.source.details.map((detail) => `  - ${md(detail)}`),
    ...input.datasets.map((d) => `- Dataset \`${d.id}\`: ${md(d.name)} (source: ${md(d.source)}; license: ${md(d.license ?? "not recorded")})`),
    `- Export seed ${input.seed}; derived seeds ${Object.entries(input.seeds).map(([k, v]) => `${k} \`${v}\``).join(", ")}; held-out fraction ${input.heldOutFraction}`,
    "",
    "How the rows were chosen:",
    "",
    ...input.procedure.map((step, i) => `${i + 1}. ${md(step)}`),
    "",
    "## License",
    "",
    input.license.note,
    "",
    ...trainingSection(launch),
    ...releaseSection(release),
    "Other files: `requirements.txt`, `manifest.json`.",
  ];
  return `${header}\n${body.join("\n")}\n`;
}
