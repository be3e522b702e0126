import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";
import { averageLabel } from "@stepwiser/core";
import { startBenchEnvironment } from "./bench-environment";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { benchmarkKind, connectJobQueue, executeRun, runPredictions, runImport, UNIT_RUN_KINDS, submitProcessBenchImport } from "../src";

/**
 * ProcessBench (the shipped gsm8k and math subsets) judged chunk by chunk by the
 * arith-checker, two simulated judge qualities and the judge with correlated
 * errors; each run's stored scores are compared with `stepwiser processbench
 * score` on the run's exported predictions.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Each judge with the protocol its model speaks: the StepWiser chunk judges, then one simulated model per other family. */
const JUDGES: ReadonlyArray<{ model: string; protocol: string; extra?: Record<string, unknown>; label?: string }> = [
  ...["arith-checker", "sim-judge-medium", "sim-judge-strong", "sim-judge-correlated"].map((model) => ({ model, protocol: "stepwiser-chunk" })),
  { model: "sim-thinkprm", protocol: "thinkprm" },
  { model: "sim-genprm", protocol: "genprm" },
  { model: "sim-math-prm", protocol: "discriminative-prm" },
  // The ProcessBench critic, greedy and with ProcessBench's voting (n = 8 at its defaults, temperature 1, top_p 0.9).
  { model: "sim-judge-strong", protocol: "processbench-critic", label: "critic" },
  { model: "sim-judge-strong", protocol: "processbench-critic", extra: { samples: 8 }, label: "critic Maj@8" },
];
/** Solutions judged of each shipped subset (about; 1 in every ⌈size ÷ this⌉ in file order); null: all of them. */
const SOLUTIONS_PER_SUBSET = atProfile<number | null>({ full: null, quick: 50 });
const env = await startBenchEnvironment();
const { db, cluster, endpoints } = env;
const url = env.url;
// The shipped files list their solutions grouped by label (erroneous first), so a smaller sample takes
// every n-th one to keep the mix of erroneous and correct solutions that acc_err and acc_cor are computed on.
const subsets = DEMO_PROCESSBENCH_FILES.map((file) => {
  const records = JSON.parse(readFileSync(file, "utf8")) as unknown[];
  const every = SOLUTIONS_PER_SUBSET === null ? 1 : Math.ceil(records.length / SOLUTIONS_PER_SUBSET);
  return { file, name: path.basename(file, ".json"), total: records.length, every, sample: records.filter((_, i) => i % every === 0) };
});
/** The files imported and scored: the shipped ones, or their samples under the same names (the name gives the subset). */
const files = subsets.map(({ file, every, sample }) => {
  if (every === 1) return file;
  const copy = path.join(env.scratch, path.basename(file));
  writeFileSync(copy, JSON.stringify(sample));
  return copy;
});
const n = (value: number) => value.toLocaleString("en");
type Interval = { lower: number; upper: number };
const INTERVALS = ["f1_ci95", "acc_err_ci95", "acc_cor_ci95"] as const;
const subsetSizes = subsets.map((s) => (s.every === 1 ? `${s.name} ${n(s.total)}` : `${s.name} ${n(s.sample.length)} of ${n(s.total)} (1 in ${s.every})`)).join(", ");

try {
  for (const model of new Set(JUDGES.map((j) => j.model))) {
    const protocols = [...new Set(JUDGES.filter((j) => j.model === model).map((j) => j.protocol))];
    await db.endpoint.create({ data: { name: model, model, role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 256, protocols } });
  }
  const queue = await connectJobQueue(url);
  const datasets: string[] = [];
  for (const file of files) {
    const run = await submitProcessBenchImport(db, queue, { fileName: path.basename(file), content: readFileSync(file) });
    await runImport(db, run.id);
    datasets.push((await db.run.findUniqueOrThrow({ where: { id: run.id } })).datasetId!);
  }
  await queue.stop({ graceful: false, wait: true });

  const rows = [];
  for (const { model: judge, protocol, extra, label } of JUDGES) {
    const name = label ? `${judge} ${label}` : judge;
    const outputs = { outputs: 0, truncated: 0, unparseable: 0 };
    let sampling = "";
    const stored: Record<string, { f1: number; acc_err: number; acc_cor: number }> = {};
    /** Each run's stored 95 % intervals (percentile bootstrap over the subset's solutions), per metric and subset. */
    const storedIntervals: Record<"f1_ci95" | "acc_err_ci95" | "acc_cor_ci95", Record<string, Interval>> = { f1_ci95: {}, acc_err_ci95: {}, acc_cor_ci95: {} };
    const lines: string[] = [];
    let intervals = "";
    for (const datasetId of datasets) {
      // Each protocol samples as its source does (its defaults; the run gives only K where it votes).
      const config = benchmarkKind.submitSchema.parse({ datasetId, judgeEndpoint: judge, protocol, concurrency: 128, ...extra });
      sampling = `K ${config.samples}, temperature ${config.temperature}${config.topP === undefined ? "" : `, top_p ${config.topP}`}, maxTokens ${config.maxTokens}`;
      const run = await db.run.create({ data: { kind: "benchmark", config: (await benchmarkKind.snapshot(db, config)) as object, datasetId } });
      await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
      const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (done.status !== "completed") throw new Error(`benchmark with ${judge} ended ${done.status}: ${done.error}`);
      const summary = done.summary as { subsets: typeof stored; judgeOutputs: typeof outputs } & typeof storedIntervals;
      for (const key of ["outputs", "truncated", "unparseable"] as const) outputs[key] += summary.judgeOutputs[key];
      Object.assign(stored, summary.subsets);
      for (const key of INTERVALS) Object.assign(storedIntervals[key], summary[key]);
      for (const [subset, ci] of Object.entries(summary.f1_ci95)) intervals += ` ${subset} [${ci.lower.toFixed(3)}, ${ci.upper.toFixed(3)}]`;
      for await (const p of runPredictions(db, run.id)) lines.push(JSON.stringify(p));
    }
    const predictions = path.join(env.scratch, `${name.replaceAll(" ", "-")}.jsonl`);
    writeFileSync(predictions, lines.join("\n"));
    const cli = spawnSync("corepack", ["pnpm", "--silent", "stepwiser", "processbench", "score", "--data", ...files, "--predictions", predictions], { cwd: root, encoding: "utf8" });
    if (cli.status !== 0) throw new Error(`processbench score failed: ${cli.stderr}`);
    const scored = JSON.parse(cli.stdout) as { subsets: typeof stored; average_f1: number; subsets_in_average: string[]; average_f1_ci95: Interval | null } & typeof storedIntervals;
    // The same scores, and the same intervals: each subset's solutions in file order, the same resamples and seed (the defaults of both).
    const sameInterval = (a: Interval | undefined, b: Interval | undefined) => a !== undefined && b !== undefined && a.lower === b.lower && a.upper === b.upper;
    const equal = Object.keys(scored.subsets).every(
      (s) =>
        scored.subsets[s]!.f1 === stored[s]!.f1 &&
        scored.subsets[s]!.acc_err === stored[s]!.acc_err &&
        scored.subsets[s]!.acc_cor === stored[s]!.acc_cor &&
        INTERVALS.every((key) => sameInterval(scored[key][s], storedIntervals[key][s])),
    );
    // One run per subset, so the average over both subsets is the command line's, over the subsets it names: a partial average unless ProcessBench's four.
    const average = `${averageLabel(scored.subsets_in_average)} ${scored.average_f1.toFixed(3)}${scored.average_f1_ci95 ? ` [${scored.average_f1_ci95.lower.toFixed(3)}, ${scored.average_f1_ci95.upper.toFixed(3)}]` : ""}`;
    const f1s = Object.entries(stored).map(([s, v]) => `${s} F1 ${v.f1.toFixed(3)} (acc_err ${v.acc_err.toFixed(3)}, acc_cor ${v.acc_cor.toFixed(3)})`).join(" · ");
    rows.push({ metric: `${name} (${protocol}; ${sampling})`, value: `${f1s} · ${average} · 95 % CI of F1${intervals} · judge outputs ${n(outputs.outputs)}: ${n(outputs.truncated)} truncated, ${n(outputs.unparseable)} unparseable` });
    rows.push({ metric: `${name}: run scores and intervals = \`processbench score\` on its exported predictions`, value: equal ? "equal" : "different", target: "equal", met: equal });
  }
  writeBenchmarkReport({
    name: "processbench-judges",
    bench: "processbench",
    title: "ProcessBench with the built-in judges",
    method:
      `The shipped ProcessBench subsets (${subsetSizes}) imported, then a benchmark run per judge, each speaking its protocol with its source's sampling defaults (each row names them): the StepWiser chunk judges (each paragraph judged with the paper's judge prompt, stepwiser-judge@v2, and its history, stop at the first Negative; one greedy sample, up to 3096 tokens), sim-thinkprm (one verification chain per solution, greedy, and the decision token's log-probabilities), sim-genprm (each paragraph analysed and verified in GenPRM's conversation at its temperature 0.6 and top_p 0.95, code not executed, read as GenPRM's evaluator reads it: the first step whose mean P(Yes) is below 0.5), sim-math-prm (one request to vLLM's pooling API per solution, threshold 0.5) and sim-judge-strong as the ProcessBench critic with the official template, greedy and with ProcessBench's voting (8 samples at temperature 1, top_p 0.9, the most common answer). Each run's stored per-subset scores and their 95 % intervals (F1, acc_err and acc_cor, each a percentile bootstrap over the subset's solutions, 1,000 resamples, seed 0) are compared with the command line's \`processbench score\` on the run's exported predictions; the average is the command line's over both subsets, a partial average (two of ProcessBench's four subsets), with its interval stratified by subset. Judge outputs count every sample the judge wrote, those cut at the generation limit (truncated) apart from those that ended without a readable answer.

Changed since the previous measurement: each protocol's sampling defaults now come from its source (before, every protocol had 2048 tokens at temperature 0, so sim-genprm sampled greedily instead of at GenPRM's 0.6); the StepWiser judges ask with the paper's Table 3 prompt; GenPRM's prediction is its evaluator's mean-P(Yes) reading instead of the majority text verdict; ThinkPRM's prefix has helper.py's leading newline; the critic rows are new, the voting one showing the critic's Maj@8; every interval is a bootstrap over solutions (F1, acc_err and acc_cor; the partial average's stratified by subset), the same method the run page and Compare use; and truncated outputs are counted. The simulated judges' noise is drawn per prompt, so a new prompt wording redraws it: the StepWiser rows moved by that redraw, not because the wording reads better to them.`,
    limits:
      "ProcessBench text is not the simulated world's, so no simulated judge knows its truth: each sees only the arithmetic check of the paragraph (every equation between numbers it can read, recomputed). The arith-checker answers that check as it is; sim-judge-medium and -strong answer it with independent noise (each prompt its own draw, fixed at temperature 0), turning right paragraphs Negative and wrong ones Positive at their error rates; sim-judge-correlated has medium's noise and, of its systematic errors, only the one that can be read from the text here: it calls every paragraph worded as a recheck (\"Wait\", \"let me recheck\") whose arithmetic is right Negative. Its noise comes from its own random stream (seeded by its name), so on paragraphs that are not rechecks it differs from medium by chance alone. Its blindness to steps built on an earlier wrong value cannot show on ProcessBench at all: such steps come after the first error, and only the first error is scored. Mistakes of reasoning, of reading the problem, or of algebra without an equation between numbers are invisible to every one of them, so acc_err stays low whatever the noise. The numbers check that the pipeline scores what the judges said (the equal rows); they are baselines, not estimates of any real judge's F1, and a real judge's errors, correlated across paragraphs and solutions, would move them in ways these judges cannot. The protocol models (sim-thinkprm, sim-genprm, sim-math-prm) read the paragraphs the same way, by the arithmetic check with noise at their configured accuracy (0.85), and answer in their family's format: their rows show that each protocol's requests, parsing and scoring run end to end over HTTP and score exactly as `processbench score` does, not how ThinkPRM, GenPRM or Qwen2.5-Math-PRM checkpoints would do (their published four-subset averages, 75.2 for GenPRM-7B and 73.5 for Qwen2.5-Math-PRM-7B in the GenPRM paper's Table 1, come from models that read the reasoning, which these cannot; and the averages here are over two subsets, not comparable with them). The critic's Maj@8 votes over 8 draws of sim-judge-strong's independent noise, so the vote converges on what is left without that noise, the arithmetic check: its row approaches the arith-checker's. A real critic's vote converges on its systematic reading in the same way, which is not the truth either; the gain from voting measured here says nothing about a real model's.",
    rows,
  });
} finally {
  await env.close();
}
