import type { Label } from "@stepwiser/core";
import { Bool, Field, Int64, List, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray, type DataType } from "apache-arrow";
import type { LabelledChunk } from "./labelled-chunks";
import { concatBytes } from "./rows";
import type { SplitName } from "./split";
import { writeParquet } from "./verl-parquet";

/**
 * TRL's stepwise-supervision layout (the dataset type PRMTrainer reads): one row
 * per solution, `prompt` the problem, `completions` its chunks in order, `labels`
 * one bool per completion (true = Positive). PRMTrainer tokenizes exactly these
 * three columns and drops every other, so `extra_info` (where the row comes from)
 * rides along without changing training.
 */

/** The separator PRMTrainer puts after each completion by default (PRMConfig.step_separator). */
export const PRM_STEP_SEPARATOR = "\n";

/**
 * One solution the run labelled: its chunks from the first, as far as every chunk
 * has a label under the rule. Balanced by `label`: Negative when any of its steps
 * is Negative, Positive when all are. `prompt` is the text the length filter
 * measures: the problem and the completions joined as PRMTrainer joins them.
 */
export class LabelledSolution {
  readonly label: Label;
  readonly problemId: string;
  /** The lowest confidence among its labels; null when any label has none (the confidence filter keeps a solution only if every step passes). */
  readonly confidence: number | null;

  constructor(readonly steps: readonly LabelledChunk[]) {
    const first = steps[0]!;
    this.label = steps.some((step) => step.label === "Negative") ? "Negative" : "Positive";
    this.confidence = steps.some((step) => step.confidence === null) ? null : Math.min(...steps.map((step) => step.confidence!));
    this.problemId = first.problemId;
  }

  get problem(): string {
    return this.steps[0]!.problem;
  }

  get completions(): string[] {
    return this.steps.map((step) => step.text);
  }

  get prompt(): string {
    return [this.problem, ...this.completions].join(PRM_STEP_SEPARATOR) + PRM_STEP_SEPARATOR;
  }
}

export interface SolutionGrouping {
  solutions: LabelledSolution[];
  /** Solutions cut short: a chunk after the first lacks a label, so the row ends before it. */
  truncated: number;
  /** Solutions left out: their first chunk has no label under the rule. */
  withoutFirstLabel: number;
}

/**
 * Groups labelled chunks (ordered by segmentation and chunk index, as
 * `readLabelledChunks` returns them) into solutions. A completion needs a label,
 * so a solution runs from its first chunk up to the first chunk without one.
 */
export function groupSolutions(chunks: readonly LabelledChunk[]): SolutionGrouping {
  const out: SolutionGrouping = { solutions: [], truncated: 0, withoutFirstLabel: 0 };
  let start = 0;
  while (start < chunks.length) {
    let end = start;
    while (end < chunks.length && chunks[end]!.segmentationId === chunks[start]!.segmentationId) end += 1;
    const group = chunks.slice(start, end);
    start = end;
    if (group[0]!.position !== 0) {
      out.withoutFirstLabel += 1;
      continue;
    }
    let length = 1;
    while (length < group.length && group[length]!.position === length) length += 1;
    if (length < group.length) out.truncated += 1;
    out.solutions.push(new LabelledSolution(group.slice(0, length)));
  }
  return out;
}

export interface PrmExtraInfo {
  split: SplitName;
  index: number;
  solution_id: string;
  external_id: string;
  segmentation_id: string;
  problem_id: string;
  dataset_id: string;
  run_id: string;
  rule: string;
  params: string;
}

export interface PrmRow {
  prompt: string;
  completions: string[];
  labels: boolean[];
  extra_info: PrmExtraInfo;
}

/** Where a solution row comes from, for the solution formats (trl-prm, openrlhf-prm). */
export interface SolutionRowContext {
  split: SplitName;
  runId: string;
  rule: string;
  params: string;
}

/** A solution row's `extra_info`: its place in the split, the solution it is, and the run and rule that labelled it. */
export function solutionExtraInfo(solution: { steps: readonly LabelledChunk[] }, index: number, context: SolutionRowContext): PrmExtraInfo {
  const first = solution.steps[0]!;
  return {
    split: context.split,
    index,
    solution_id: first.solutionId,
    external_id: first.externalId,
    segmentation_id: first.segmentationId,
    problem_id: first.problemId,
    dataset_id: first.datasetId,
    run_id: context.runId,
    rule: context.rule,
    params: context.params,
  };
}

export function prmRow(solution: LabelledSolution, index: number, context: SolutionRowContext): PrmRow {
  return {
    prompt: solution.problem,
    completions: solution.completions,
    labels: solution.steps.map((step) => step.label === "Positive"),
    extra_info: solutionExtraInfo(solution, index, context),
  };
}

const PRM_EXTRA_INFO: Array<[keyof PrmExtraInfo, DataType, string, string]> = [
  ["split", new Utf8(), "string", '"train" or "test"'],
  ["index", new Int64(), "int64", "position of the row in its file (0-based)"],
  ["solution_id", new Utf8(), "string", "Solution id"],
  ["external_id", new Utf8(), "string", "the solution's id in its source file"],
  ["segmentation_id", new Utf8(), "string", "Segmentation id (the chunking the completions are)"],
  ["problem_id", new Utf8(), "string", "Problem id; a problem's rows are all in one split"],
  ["dataset_id", new Utf8(), "string", "Dataset id"],
  ["run_id", new Utf8(), "string", "the run whose labels were exported"],
  ["rule", new Utf8(), "string", 'label rule name: "abs-q", "rel-ratio" or "rel-effective"'],
  ["params", new Utf8(), "string", 'canonical JSON of the rule\'s parameters, e.g. {"gamma":0.7}'],
];

/** extra_info's keys with their Parquet types ("string" or "int64"). */
export const PRM_EXTRA_INFO_TYPES: Array<[string, "string" | "int64"]> = PRM_EXTRA_INFO.map(([key, , type]) => [key, type as "string" | "int64"]);

const nullable = (name: string, type: DataType) => new Field(name, type, true);

/** Nullable fields and "element" list items, as pyarrow writes a list of dicts (see verl-parquet.ts). */
const PRM_FIELDS = [
  nullable("prompt", new Utf8()),
  nullable("completions", new List(nullable("element", new Utf8()))),
  nullable("labels", new List(nullable("element", new Bool()))),
  nullable("extra_info", new Struct(PRM_EXTRA_INFO.map(([key, type]) => nullable(key, type)))),
];
const PRM_SCHEMA = new Schema(PRM_FIELDS);

/** The columns as documented in the manifest and the dataset card. */
export const PRM_COLUMNS: Array<{ name: string; type: string; description: string }> = [
  { name: "prompt", type: "string", description: "the problem statement" },
  { name: "completions", type: "list<string>", description: "the solution's chunks in order, from the first to the last one labelled" },
  { name: "labels", type: "list<bool>", description: "one per completion: true when the chunk's label is Positive, false when Negative" },
  {
    name: "extra_info",
    type: `struct<${PRM_EXTRA_INFO.map(([key, , type]) => `${key}: ${type}`).join(", ")}>`,
    description: PRM_EXTRA_INFO.map(([key, , , text]) => `${key}: ${text}`).join("; "),
  },
];

function prmBatch(rows: readonly PrmRow[]): RecordBatch {
  const column = (name: string, values: unknown[]) => vectorFromArray(values, PRM_FIELDS.find((field) => field.name === name)!.type).data[0]!;
  const children = [
    column("prompt", rows.map((row) => row.prompt)),
    column("completions", rows.map((row) => row.completions)),
    column("labels", rows.map((row) => row.labels)),
    column("extra_info", rows.map((row) => ({ ...row.extra_info, index: BigInt(row.extra_info.index) }))),
  ];
  return new RecordBatch(PRM_SCHEMA, makeData({ type: new Struct(PRM_FIELDS), length: rows.length, nullCount: 0, children }));
}

/** Rows `0..rowCount-1` as one Parquet file: list<string> completions, list<bool> labels. */
export function writePrmParquet(rowCount: number, rowAt: (index: number) => PrmRow): Promise<Uint8Array> {
  return writeParquet(PRM_SCHEMA, rowCount, rowAt, prmBatch);
}

/** The same rows as JSON lines, with the same keys. */
export function writePrmJsonl(rowCount: number, rowAt: (index: number) => PrmRow): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (let start = 0; start < rowCount; start += 1000) {
    let text = "";
    for (let i = start; i < Math.min(rowCount, start + 1000); i++) text += `${JSON.stringify(rowAt(i))}\n`;
    parts.push(encoder.encode(text));
  }
  return concatBytes(parts);
}
