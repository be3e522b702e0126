import path from "node:path";
import { parseArgs } from "node:util";
import { InputError, parseProcessBenchFile, scoreProcessBench, type ProcessBenchGold } from "@stepwiser/core";
import { z } from "zod";
import { readInputText } from "../input/files";
import { parseJsonLines } from "../input/jsonl";
import { UsageError } from "../usage-error";

const predictionLine = z.object({
  id: z.string().min(1, "must be a non-empty string"),
  prediction: z.number().int("must be an integer or null").min(-1, "must be -1 (no error), a step index, or null").nullable(),
});

/** `stepwiser processbench score --data <file.json>… --predictions FILE` */
export async function processBenchScoreCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true, // `--data a.json b.json`: files after the flag are data files too
    options: { data: { type: "string", multiple: true }, predictions: { type: "string" } },
  });
  const dataFiles = [...(values.data ?? []), ...positionals];
  if (dataFiles.length === 0) throw new UsageError("--data needs at least one ProcessBench JSON file");
  if (!values.predictions) throw new UsageError("--predictions is required (JSON lines {\"id\", \"prediction\"})");

  const gold: ProcessBenchGold[] = [];
  const goldFile = new Map<string, string>();
  for (const given of dataFiles) {
    const { records } = parseProcessBenchFile(await readInputText(given), path.basename(given));
    records.forEach((record, index) => {
      const earlier = goldFile.get(record.id);
      if (earlier) throw new InputError(`id ${record.id} is already in ${earlier}`, { file: path.basename(given), record: index, field: "id" });
      goldFile.set(record.id, path.basename(given));
      gold.push({ id: record.id, label: record.label });
    });
  }

  const predictionsName = path.basename(values.predictions);
  const lines = parseJsonLines(await readInputText(values.predictions), predictionsName, predictionLine);
  const predictions = new Map<string, number | null>();
  const lineOf = new Map<string, number>();
  for (const { line, value } of lines) {
    const earlier = lineOf.get(value.id);
    if (earlier !== undefined) throw new InputError(`id ${value.id} is already predicted on line ${earlier}`, { file: predictionsName, line, field: "id" });
    lineOf.set(value.id, line);
    predictions.set(value.id, value.prediction);
  }

  const score = scoreProcessBench(gold, predictions);
  if (score.missing.length) {
    const shown = score.missing.slice(0, 20).join(", ");
    process.stderr.write(`${score.missing.length} ids have no prediction and count as wrong: ${shown}${score.missing.length > 20 ? ", …" : ""}\n`);
  }
  if (score.unknown.length) process.stderr.write(`${score.unknown.length} predicted ids are not in the data and were ignored: ${score.unknown.slice(0, 20).join(", ")}\n`);
  if (score.unparseable) process.stderr.write(`${score.unparseable} predictions are null (unparseable) and count as wrong\n`);
  process.stdout.write(`${JSON.stringify({ subsets: score.subsets, average_f1: score.average_f1 })}\n`);
}
