import { Field, Float64, Int32, Int64, List, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, Utf8, vectorFromArray, type DataType } from "apache-arrow";
import { Compression, Table as WasmTable, transformParquetStream, WriterPropertiesBuilder, type RecordBatch as WasmRecordBatch } from "parquet-wasm";
import { concatBytes, EXTRA_INFO_FIELDS, type TrainingExtraInfo, type TrainingRow } from "./rows";

/** verl's `ability` column: what the task is, for mixing datasets. */
export const VERL_ABILITY = "math-judge";

const nullable = (name: string, type: DataType) => new Field(name, type, true);

/** Arrow type of each extra_info field, with the name the manifest gives it. */
export const EXTRA_INFO_TYPES: Record<keyof TrainingExtraInfo, [DataType, string]> = {
  split: [new Utf8(), "string"],
  index: [new Int64(), "int64"],
  chunk_id: [new Utf8(), "string"],
  chunk_index: [new Int32(), "int32"],
  solution_id: [new Utf8(), "string"],
  external_id: [new Utf8(), "string"],
  segmentation_id: [new Utf8(), "string"],
  problem_id: [new Utf8(), "string"],
  dataset_id: [new Utf8(), "string"],
  run_id: [new Utf8(), "string"],
  rule: [new Utf8(), "string"],
  params: [new Utf8(), "string"],
  confidence: [new Float64(), "double"],
};
const EXTRA_INFO_KEYS = Object.keys(EXTRA_INFO_TYPES) as Array<keyof TrainingExtraInfo>;

/*
 * verl's RL dataset layout, the one its own preprocessing scripts write with
 * pandas/pyarrow: a chat `prompt`, a rule-based `reward_model` holding the
 * ground truth that `compute_score` receives, and `extra_info` passed through
 * to it. Every field is nullable, as pyarrow infers from a list of dicts, so
 * these files concatenate with verl datasets made in Python without a schema
 * mismatch; no value is null except extra_info.confidence of a label stored without one. "element" is the list item name the Parquet
 * spec gives 3-level LISTs (and the one pyarrow writes), so readers that go by
 * the Parquet schema alone agree.
 */
const VERL_FIELDS = [
  nullable("data_source", new Utf8()),
  nullable("prompt", new List(nullable("element", new Struct([nullable("role", new Utf8()), nullable("content", new Utf8())])))),
  nullable("ability", new Utf8()),
  nullable("reward_model", new Struct([nullable("style", new Utf8()), nullable("ground_truth", new Utf8())])),
  nullable("extra_info", new Struct(EXTRA_INFO_KEYS.map((key) => nullable(key, EXTRA_INFO_TYPES[key][0])))),
];
const VERL_SCHEMA = new Schema(VERL_FIELDS);

/** The columns as documented in the manifest. */
export const VERL_COLUMNS: Array<{ name: string; type: string; description: string }> = [
  { name: "data_source", type: "string", description: "the export's dataSource option; verl passes it to compute_score" },
  { name: "prompt", type: "list<struct<role: string, content: string>>", description: "chat messages: one user message holding the StepWiser judge prompt" },
  { name: "ability", type: "string", description: `always "${VERL_ABILITY}"` },
  { name: "reward_model", type: "struct<style: string, ground_truth: string>", description: 'style "rule"; ground_truth is the chunk label, "Positive" or "Negative"' },
  {
    name: "extra_info",
    type: `struct<${EXTRA_INFO_KEYS.map((key) => `${key}: ${EXTRA_INFO_TYPES[key][1]}`).join(", ")}>`,
    description: EXTRA_INFO_KEYS.map((key) => `${key}: ${EXTRA_INFO_FIELDS[key]}`).join("; "),
  },
];

/** Rows per Arrow batch and per Parquet row group: bounds the memory a large export holds at once. */
export const VERL_ROW_GROUP_ROWS = 2048;

function arrowBatch(rows: readonly TrainingRow[], dataSource: string): RecordBatch {
  const column = (name: string, values: unknown[]) => {
    const type = VERL_FIELDS.find((field) => field.name === name)!.type;
    return vectorFromArray(values, type).data[0]!;
  };
  const children = [
    column("data_source", rows.map(() => dataSource)),
    column("prompt", rows.map((row) => row.prompt.map(({ role, content }) => ({ role, content })))),
    column("ability", rows.map(() => VERL_ABILITY)),
    column("reward_model", rows.map((row) => ({ style: "rule", ground_truth: row.label }))),
    column("extra_info", rows.map((row) => ({ ...row.extra_info, index: BigInt(row.extra_info.index) }))),
  ];
  return new RecordBatch(VERL_SCHEMA, makeData({ type: new Struct(VERL_FIELDS), length: rows.length, nullCount: 0, children }));
}

// The writer takes its own (WebAssembly-side) batches; the table wrapping them is freed
// at once so only the batches in flight stay in WebAssembly memory.
function toWasmBatches(schema: Schema, batch: RecordBatch): WasmRecordBatch[] {
  const table = WasmTable.fromIPCStream(tableToIPC(new Table(schema, batch), "stream"));
  try {
    return table.recordBatches();
  } finally {
    table.free();
  }
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return concatBytes(parts);
}

/**
 * Writes rows `0..rowCount-1` (built on demand by `rowAt`, turned into Arrow
 * batches of `schema` by `toBatch`) as one Parquet file, Snappy-compressed like
 * pyarrow's default. Rows are built, converted and written one row group at a
 * time. An empty split still gets a file with the full schema.
 */
export async function writeParquet<Row>(
  schema: Schema,
  rowCount: number,
  rowAt: (index: number) => Row,
  toBatch: (rows: readonly Row[]) => RecordBatch,
  rowsPerGroup = VERL_ROW_GROUP_ROWS,
): Promise<Uint8Array> {
  let next = 0;
  let started = false;
  const input = new ReadableStream<WasmRecordBatch>({
    pull(controller) {
      if (started && next >= rowCount) {
        controller.close();
        return;
      }
      started = true;
      const rows: Row[] = [];
      for (; next < rowCount && rows.length < rowsPerGroup; next += 1) rows.push(rowAt(next));
      for (const batch of toWasmBatches(schema, toBatch(rows))) controller.enqueue(batch);
    },
  });
  const properties = new WriterPropertiesBuilder().setCompression(Compression.SNAPPY).setMaxRowGroupSize(rowsPerGroup).build();
  return collect((await transformParquetStream(input, properties)) as ReadableStream<Uint8Array>);
}

/** verl's layout: rows `0..rowCount-1` as one Parquet file (see `writeParquet`). */
export async function writeVerlParquet(
  rowCount: number,
  rowAt: (index: number) => TrainingRow,
  dataSource: string,
  rowsPerGroup = VERL_ROW_GROUP_ROWS,
): Promise<Uint8Array> {
  return writeParquet(VERL_SCHEMA, rowCount, rowAt, (rows) => arrowBatch(rows, dataSource), rowsPerGroup);
}
