import path from "node:path";
import { InputError, parsePrmbenchRecord, prmbenchItems, scorePrmbench, type PrmbenchRecord } from "@stepwiser/core";
import { z } from "zod";
import { readInputText } from "../input/files";
import { parseJsonLines } from "../input/jsonl";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const predictionLine = z.object({
  id: z.string().min(1, "must be a non-empty string"),
  labels: z.array(z.boolean({ error: "must be true (the step is correct) or false" }), { error: "must be an array of booleans, one per step" }),
});

/** The records of one PRMBench data file: JSON lines (as released), or one JSON array. */
export function readPrmbenchRecords(text: string, file: string): PrmbenchRecord[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new InputError(`not valid JSON (${(error as Error).message})`, { file });
    }
    if (!Array.isArray(parsed)) throw new InputError("expected JSON lines or a JSON array of records", { file });
    return parsed.map((value, record) => parsePrmbenchRecord(value, { file, line: 1, record }));
  }
  return parseJsonLines(text, file, z.unknown()).map(({ line, value }, record) => parsePrmbenchRecord(value, { file, line, record }));
}

const list = (ids: readonly string[]) => `${ids.slice(0, 20).join(", ")}${ids.length > 20 ? ", …" : ""}`;

/**
 * `stepwiser prmbench score --data FILE… --predictions P`: PRMScore, F1 and negative F1 over
 * the modified items, and per class, exactly as PRMBench's evaluator computes them
 * (packages/core/src/prmbench/score.ts); one JSON object on stdout, what was left out on stderr.
 */
export async function prmbenchScoreCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("prmbench score", {
    args,
    allowPositionals: true, // `--data a.jsonl b.jsonl`: files after the flag are data files too
    options: { data: { type: "string", multiple: true }, predictions: { type: "string" } },
  });
  const dataFiles = [...(values.data ?? []), ...positionals];
  if (dataFiles.length === 0) throw new UsageError("--data needs at least one PRMBench data file (JSON lines)");
  if (!values.predictions) throw new UsageError('--predictions is required (JSON lines {"id": "<classification>_<idx>", "labels": [true|false per step]})');

  const records: PrmbenchRecord[] = [];
  for (const given of dataFiles) records.push(...readPrmbenchRecords(await readInputText(given), path.basename(given)));
  const { items, repeated: repeatedItems } = prmbenchItems(records);

  const lines = parseJsonLines(await readInputText(values.predictions), path.basename(values.predictions), predictionLine);
  const scoring = scorePrmbench(items, lines.map(({ value }) => value));

  const note = (text: string) => process.stderr.write(`${text}\n`);
  if (repeatedItems.length) note(`${repeatedItems.length} items appear again in the data; the first of each counts, as in PRMBench's evaluator: ${list(repeatedItems)}`);
  if (scoring.missing.length) note(`${scoring.missing.length} of ${items.length} items have no prediction and are left out: ${list(scoring.missing)}`);
  if (scoring.unknown.length) note(`${scoring.unknown.length} predicted ids are not items of the data and were ignored: ${list(scoring.unknown)}`);
  if (scoring.repeated.length) note(`${scoring.repeated.length} ids are predicted again; the first prediction counts: ${list(scoring.repeated)}`);
  const { prmscore, f1, negative_f1, n, by_class } = scoring.score;
  process.stdout.write(`${JSON.stringify({ prmscore, f1, negative_f1, n, by_class })}\n`);
}
