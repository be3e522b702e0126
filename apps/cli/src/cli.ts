import { InputError } from "@stepwiser/core";
import { UsageError } from "./usage-error";

/**
 * `stepwiser <command>`: results on stdout (JSON), progress and logs on stderr,
 * exit code 2 for bad usage or bad input, 1 for other failures.
 */
const USAGE = `usage: stepwiser <command>

commands:
  import processbench|prm800k|math-shepherd|jsonl <file>... [--name NAME | --dataset ID]
         [--subset S] [--generator G] [--map SPEC] [--duplicates skip|replace] [--preview] [--detach]
      Import files (one dataset per file, or into --dataset) as jobs; waits for them
      unless --detach. jsonl needs --map problem=PATH,steps=PATH|text=PATH[,answer=,labels=,id=,…].
      --preview prints the first 20 records as read, without importing.
      Uses DATABASE_URL, else the embedded database of this checkout.
  export training-set --run RUN --rule abs-q|rel-ratio|rel-effective [--gamma x | --alpha x --n k]
         [--format verl|openrlhf|trl] [--seed S] [--held-out 0.1] [--min-chars N] [--max-chars N]
         [--min-confidence 0.9] --out DIR
  export labels|predictions --run RUN --out FILE|-
      Export runs (jobs): a balanced judge training set (parquet or JSONL, with a reward
      function file; --min-confidence keeps only labels at least that sure, before balancing),
      a run's chunk labels with their confidence, or its ProcessBench predictions.
  grade --gold G --pred P [--mode boxed|lenient] [--time-limit-ms MS] [--details]
  grade --jsonl FILE [--mode boxed|lenient] [--time-limit-ms MS] [--threads N] [--details]
      Extract and compare final answers; one JSON object per pair, in input order, naming
      the extraction rule that found the prediction's answer. --mode boxed reads only boxes and
      answer phrases (output asked to box its answer); lenient (default) also prose and numbers.
  processbench score --data <file.json>... --predictions FILE
      ProcessBench acc_err / acc_cor / F1 per subset and their average.
  label --rule abs-q|rel-ratio|rel-effective [--gamma x] [--alpha x] [--n k] [--evidence E] --q0 x --q x1,x2,...
  label --rule R [rule parameters] [--epsilon e] [--prior jeffreys|uniform] --counts s0/m0,s1/m1,...
      Chunk labels from Q-values, and the first error they imply; with rollout counts also
      each label's confidence (the posterior probability that the rule on the true values agrees).
  segment --method blank-line|step-markers --file F
      Baseline segmentation of a solution into chunks with character offsets.
  chunks check --original F --chunked G
      Check that a <chunk>-tagged segmentation reproduces the original text.
  verdict --file F
      Parse a judge output: Positive, Negative or unparseable.
  run <kind> --config FILE.json [--detach | --offline]
      Launch a run (annotate, …) and follow its progress; works the queue here too
      unless --detach. --offline (annotate, judge) only creates the run, for batch
      export/import. run cancel|resume|status|predictions <runId>;
      run relabel <runId> --rule R [--gamma x | --alpha x --n k] (from stored Q-values).
  plan annotate --config FILE.json --tokens-per-second N [--prefill-tokens-per-second N]
      Estimate an annotate run before launching it: requests, rollouts, prompt and
      generated tokens and hours at that throughput, from the dataset's chunks and
      a finished fixed run's Q-values (or stated assumptions); the adaptive strategy
      is simulated on a seeded sample of the solutions; one JSON object.
  prior fit --run RUN
      Fit label confidence's mixture prior (Q = 0, Q = 1, a Beta part) to an annotate
      run's rollout counts; one JSON object for labelConfidence.mixture.
  batch export <runId> [-o FILE]
      The requests an offline run still needs, as an OpenAI batch file for
      \`vllm run-batch\` (stdout without -o; the count on stderr).
  batch import <runId> <output.jsonl>
      Store a \`vllm run-batch\` output for the run, then execute it (only failed
      requests are sent online) and print its final status like \`run\`.
  sim dataset --name N [--problems 100] [--solutions 4] [--seed S] [--error-rate p] [--recovery-rate q]
      A dataset of simulated-world problems and sim-policy solutions with their ground truth.
  sim run-batch -i IN.jsonl -o OUT.jsonl --url URL [--concurrency N]
      \`vllm run-batch\` against a simulated cluster (URL: a replica's …/v1).
  sim-cluster [--replicas N] [--port P] [--config FILE] [--time-scale X]
      Run simulated vLLM replicas (sim-policy, sim-judge-*, sim-segmenter,
      arith-checker) until Ctrl-C; prints their URLs as one JSON line.
`;

type Command = (args: string[]) => Promise<void>;

// Loaded on demand: the pure commands must not pay for the database client's start-up.
const commands: Record<string, () => Promise<Command>> = {
  import: async () => (await import("./commands/import")).importCommand,
  export: async () => (await import("./commands/export")).exportCommand,
  "processbench score": async () => (await import("./commands/processbench-score")).processBenchScoreCommand,
  grade: async () => (await import("./commands/grade")).gradeCommand,
  label: async () => (await import("./commands/label")).labelCommand,
  verdict: async () => (await import("./commands/verdict")).verdictCommand,
  segment: async () => (await import("./commands/segment")).segmentCommand,
  run: async () => (await import("./commands/run")).runCommand,
  plan: async () => (await import("./commands/plan")).planCommand,
  prior: async () => (await import("./commands/prior")).priorCommand,
  "sim dataset": async () => (await import("./commands/sim-dataset")).simDatasetCommand,
  "sim run-batch": async () => (await import("./commands/sim-run-batch")).simRunBatchCommand,
  batch: async () => (await import("./commands/batch")).batchCommand,
  "sim-cluster": async () => (await import("./commands/sim-cluster")).simClusterCommand,
  "chunks check": async () => (await import("./commands/chunks-check")).chunksCheckCommand,
};

async function dispatch(argv: string[]) {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  // Longest command name first, so "processbench score" wins over a shorter prefix.
  const names = Object.keys(commands).sort((a, b) => b.split(" ").length - a.split(" ").length);
  for (const name of names) {
    const words = name.split(" ");
    if (words.every((w, i) => argv[i] === w)) {
      const run = await commands[name]!();
      return run(argv.slice(words.length));
    }
  }
  throw new UsageError(`unknown command "${argv.slice(0, 2).join(" ")}"\n\n${USAGE}`);
}

function isNodeArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/**
 * Runs one command line and returns its exit code: 0 done, 1 failed, 2 bad usage
 * or bad input. Every error ends here as one line on stderr naming what is wrong
 * and where, never as a stack trace.
 */
export async function runCommandLine(argv: string[]): Promise<number> {
  const outerExitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    await dispatch(argv);
    return Number(process.exitCode ?? 0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`stepwiser: ${message}\n`);
    return error instanceof UsageError || error instanceof InputError || isNodeArgumentError(error) ? 2 : 1;
  } finally {
    process.exitCode = outerExitCode;
  }
}
