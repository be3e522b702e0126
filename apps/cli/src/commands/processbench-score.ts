import path from "node:path";
import { averageLabel, InputError, processBenchIntervals, readProcessBenchFile, scoreProcessBench, type ProcessBenchGold } from "@stepwiser/core";
import { z } from "zod";
import { readInputText } from "../input/files";
import { parseJsonLines } from "../input/jsonl";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const predictionLine = z.object({
  id: z.string().min(1, "must be a non-empty string"),
  prediction: z.number().int("must be an integer or null").min(-1, "must be -1 (no error), a step index, or null").nullable(),
});

/** The bootstrap's defaults: a benchmark run's, so a run's summary and this command give the same intervals. */
const DEFAULT_RESAMPLES = 1000;
const DEFAULT_SEED = 0;

/** An integer flag within [min, max] (a benchmark run's bounds for its bootstrap), or the default. */
function integerFlag(name: string, given: string | undefined, fallback: number, min: number, max: number): number {
  if (given === undefined) return fallback;
  const value = Number(given);
  if (!/^-?\d+$/.test(given.trim()) || !Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${given}"`);
  return value;
}

/**
 * `stepwiser processbench score --data <file.json>… --predictions FILE [--resamples N] [--seed S]`:
 * per subset n, acc_err, acc_cor and F1, their average with the subsets it is over
 * (`subsets_in_average`, `average_is_partial`), and every number's 95 % percentile-bootstrap
 * interval over solutions (the average's stratified by subset), as a benchmark run's summary has them.
 */
export async function processBenchScoreCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("processbench score", {
    args,
    allowPositionals: true, // `--data a.json b.json`: files after the flag are data files too
    options: { data: { type: "string", multiple: true }, predictions: { type: "string" }, resamples: { type: "string" }, seed: { type: "string" } },
  });
  const dataFiles = [...(values.data ?? []), ...positionals];
  if (dataFiles.length === 0) throw new UsageError("--data needs at least one ProcessBench JSON file");
  if (!values.predictions) throw new UsageError("--predictions is required (JSON lines {\"id\", \"prediction\"})");
  const bootstrap = { resamples: integerFlag("resamples", values.resamples, DEFAULT_RESAMPLES, 100, 100_000), seed: integerFlag("seed", values.seed, DEFAULT_SEED, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) };

  const gold: ProcessBenchGold[] = [];
  const goldFile = new Map<string, string>();
  for (const given of dataFiles) {
    const solutions = await readProcessBenchFile(await readInputText(given), path.basename(given));
    solutions.forEach((solution, index) => {
      const id = solution.externalId;
      const earlier = goldFile.get(id);
      if (earlier) throw new InputError(`id ${id} is already in ${earlier}`, { file: path.basename(given), record: index, field: "id" });
      goldFile.set(id, path.basename(given));
      gold.push({ id, label: solution.firstErrorIndex! });
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
  if (score.average_is_partial) process.stderr.write(`average_f1 is a ${averageLabel(score.subsets_in_average)}, not ProcessBench's average over its four subsets\n`);
  process.stdout.write(
    `${JSON.stringify({ subsets: score.subsets, average_f1: score.average_f1, subsets_in_average: score.subsets_in_average, average_is_partial: score.average_is_partial, ...processBenchIntervals(gold, predictions, bootstrap), bootstrap })}\n`,
  );
}
