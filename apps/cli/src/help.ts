/**
 * Help for the command line: the top-level USAGE, and one entry per command and
 * subcommand (keyed by its words, e.g. "run relabel") with its flags and an example.
 * An entry's synopsis is taken from USAGE's lines for that command unless it gives
 * its own (subcommands USAGE mentions only in prose). No command module is loaded:
 * `--help` never touches a database.
 */

/**
 * `stepwiser <command>`: results on stdout (JSON), progress and logs on stderr,
 * exit code 2 for bad usage or bad input, 1 for other failures.
 */
export const USAGE = `usage: stepwiser <command>

commands:
  import processbench|prm800k|math-shepherd|prmbench|jsonl|parquet <file>... [--name NAME | --dataset ID]
         [--subset S] [--generator G] [--map SPEC] [--duplicates skip|replace [--delete-human-labels]]
         [--preview] [--detach] [--on-invalid fail|skip] [--max-invalid-share 0.05]
      Import files (one dataset per file, or into --dataset) as jobs; waits for them
      unless --detach. jsonl and parquet need --map problem=PATH,steps=PATH|text=PATH[,answer=,labels=,id=,…]
      (a PATH is dotted: a JSON field or a Parquet column, into structs and lists).
      --preview prints the first 20 records as read, without importing.
      An invalid record fails the whole file (--on-invalid fail, default) or is skipped
      and reported (skip), unless more than --max-invalid-share of the records are invalid.
      Replacing solutions that hold human work (human labels, annotation items, assignments,
      adjudications) fails, naming how much and where, unless --delete-human-labels.
      Uses DATABASE_URL, else the embedded database of this checkout.
  import report <runId> [-o FILE]
      The records an import skipped as invalid or ignored, one JSON object per line
      (file, line, record, field, reason, kind).
  export training-set --run RUN --rule abs-q|rel-ratio|rel-effective [--gamma x | --alpha x --n k]
         [--format verl|openrlhf|trl|trl-prm|openrlhf-prm] [--seed S] [--held-out 0.1] [--min-chars N] [--max-chars N]
         [--min-confidence 0.9] --out DIR
  export segmentation-sft --run SEGMENT_RUN --out DIR [--max-per-problem 4] [--include-incorrect]
         [--format chat-jsonl|trl-sft|verl-sft] [--seed S] [--held-out 0.1]
  export selection --run JUDGE_RUN --aggregate mean|min|last [--baseline outcome] --out DIR
         [--format chat-jsonl|trl-sft|verl-sft] [--seed S]
  export labels|predictions --run RUN --out FILE|-
      Export runs (jobs): a balanced judge training set (parquet or JSONL, with a reward
      function file; --min-confidence keeps only labels at least that sure, before balancing),
      a run's chunk labels with their confidence, or its ProcessBench predictions;
      SFT sets for the policy: its own chunk-tagged responses (segmentation-sft) or each
      problem's best-judged correct response (selection).
  prmbench score --data <file.jsonl>... --predictions FILE
      PRMBench PRMScore, F1 and negative F1 over the modified items and per class, computed
      as its official evaluator does; a missing id is reported on stderr and left out.
  grade --gold G --pred P [--problem TEXT] [--mode boxed|lenient] [--time-limit-ms MS] [--details]
  grade --jsonl FILE [--mode boxed|lenient] [--time-limit-ms MS] [--threads N] [--details]
      Extract and compare final answers; one JSON object per pair, in input order, naming
      the extraction rule that found the prediction's answer. --mode boxed reads only boxes and
      answer phrases (output asked to box its answer); lenient (default) also prose and numbers.
  processbench score --data <file.json>... --predictions FILE [--resamples N] [--seed S]
      ProcessBench acc_err / acc_cor / F1 per subset and their average (partial unless over the
      four subsets), each with its 95 % bootstrap interval over solutions.
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
  sandbox run --file F [--timeout-s N] [--memory-mb M]
      Run one python block in the code execution sandbox, as GenPRM execution does; one JSON
      object {"stdout", "stderr", "exitCode", "timedOut"} (exit 0 whenever the sandbox ran it).
  sandbox check
      The isolation code blocks run under here (bubblewrap, namespaces, uid, seccomp, limits,
      budget), or why code execution is refused (exit 1).
  run list [--kind K] [--status S] [--limit N] [--offset N] [--include-data-jobs]
      One page of runs, newest first, as {"runs": [...], "nextOffset"} (null on the last
      page; pass it as --offset for the next); imports and exports only with --kind or
      --include-data-jobs.
  run <kind> --config FILE.json [--dry-run] [--preset paper-1.5b|paper-7b] [--detach | --offline] [--name N] [--tag T …] [--notes TEXT]
      Launch a run (annotate, …) and follow its progress; works the queue here too
      unless --detach. --offline (annotate, judge) only creates the run, for batch
      export/import. --dry-run checks the config and prints it with every default
      applied, storing nothing. run cancel|resume|status|predictions <runId>;
      run relabel <runId> --rule R [--gamma x | --alpha x --n k] (from stored Q-values);
      run edit <runId> [--name N] [--tag T …] [--notes TEXT] (rename, retag).
      run launch <kind> … is run <kind> ….
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
  endpoint list|add|update|remove|test [NAME] [--name N] [--model M] [--role policy|judge|segmenter]
         [--url URL]... [--max-concurrency K] [--api-key-env VAR]
         [--prompt-price USD] [--cached-prompt-price USD] [--completion-price USD] [--protocol ID]...
         [--server auto|vllm|sglang|openai-compatible]
      Manage inference endpoints without the browser (JSON on stdout, keys never shown);
      changes are audited as the first admin user's. Uses DATABASE_URL, else the embedded database.
  sim dataset --name N [--problems 100] [--solutions 4] [--seed S] [--error-rate p] [--recovery-rate q]
      A dataset of simulated-world problems and sim-policy solutions with their ground truth.
  sim run-batch -i IN.jsonl -o OUT.jsonl --url URL [--concurrency N]
      \`vllm run-batch\` against a simulated cluster (URL: a replica's …/v1).
  sim-cluster [--replicas N] [--port P] [--config FILE] [--time-scale X] [--dialect vllm|sglang]
      Run simulated vLLM (or SGLang) replicas (sim-policy, sim-judge-*, sim-segmenter,
      arith-checker) until Ctrl-C; prints their URLs as one JSON line.

remote mode (a deployed studio, no database credentials):
  STEPWISER_URL=<the studio's address> STEPWISER_TOKEN=<an API token> stepwiser <command>
      (or --url URL --token TOKEN, before the command or among its flags; they win over the
      environment). run list, run <kind>, run status|cancel|resume|predictions, export,
      import, import report and endpoint list then go through the studio's REST API
      (/api/v1) and open no database; its workers do the work. Commands that need the
      database are refused (exit 2); those that need none (grade, label, …) run here.
      A refusal of the API prints its code, field and message (exit 2 for bad input, 1 otherwise).
`;

type Flag = readonly [flag: string, meaning: string];

interface CommandHelp {
  /** What the command does, in one line. */
  summary: string;
  /** Synopsis lines (without "stepwiser "), when USAGE has none for this command. */
  synopsis?: readonly string[];
  flags: readonly Flag[];
  example: string;
}

const RULE_FLAGS: readonly Flag[] = [
  ["--rule abs-q|rel-ratio|rel-effective", "the label rule"],
  ["--gamma x", "abs-q / rel-ratio threshold (default: the paper's)"],
  ["--alpha x --n k", "rel-effective parameters (default: the paper's)"],
  ["--evidence own-prefix|later-prefixes", "which rollouts a chunk's label rests on"],
];

const IMPORT_FLAGS: readonly Flag[] = [
  ["--name NAME", "the new dataset's name (a single file)"],
  ["--dataset ID", "import into this existing dataset instead"],
  ["--subset S", "the subset the records belong to"],
  ["--generator G", "the model that generated the solutions"],
  ["--duplicates skip|replace", "what to do with records already imported (default skip)"],
  ["--delete-human-labels", "replace only: delete the human labels, annotation items, assignments and adjudications on replaced solutions (refused without it); audited with their ids"],
  ["--on-invalid fail|skip", "an unreadable record fails the file (default), or is skipped and reported"],
  ["--max-invalid-share F", "skip only: fail anyway above this share of invalid records (default 0.05)"],
  ["--preview", "print the first 20 records as read, without importing"],
  ["--detach", "queue the import jobs and return without waiting"],
];
const MAP_FLAG: Flag = ["--map SPEC", "jsonl and parquet only: problem=PATH,steps=PATH|text=PATH[,answer=,labels=,id=,…]"];

const EXPORT_TRAINING_SET_FLAGS: readonly Flag[] = [
  ["--run RUN", "the annotate run whose labels are exported"],
  ...RULE_FLAGS,
  ["--format verl|openrlhf|trl|trl-prm|openrlhf-prm", "the trainer's format (default verl); trl-prm, openrlhf-prm: stepwise supervision for TRL's or OpenRLHF's PRM trainer, one row per solution"],
  ["--seed S", "the seed of the balancing and held-out split"],
  ["--held-out F", "fraction held out for evaluation (e.g. 0.1)"],
  ["--min-chars N / --max-chars N", "keep prompts of this length only"],
  ["--min-confidence P", "keep labels at least this sure (0..1), before balancing"],
  ["--data-source NAME", "the data_source field of the records"],
  ["--balance-solutions", "trl-prm, openrlhf-prm: as many solutions with a Negative step as without, per split"],
  ["--max-response-tokens N", "verl, openrlhf, trl: tokens a rollout may generate in the launch command (default 3096, the paper's judge cap)"],
  ["--out DIR", "the directory for the files (README.md dataset card and manifest.json included)"],
  ["--detach", "queue the export and return its run id without waiting"],
];
const SFT_FLAGS: readonly Flag[] = [
  ["--format chat-jsonl|trl-sft|verl-sft", "chat-jsonl: JSON lines for OpenRLHF's SFT trainer (default); trl-sft: JSON lines for TRL's; verl-sft: Parquet for verl's"],
  ["--seed S", "the seed of the draws and of the held-out split (default 0)"],
  ["--out DIR", "the directory for the files (README.md dataset card, manifest.json, requirements.txt included)"],
  ["--detach", "queue the export and return its run id without waiting"],
];
const EXPORT_SEGMENTATION_SFT_FLAGS: readonly Flag[] = [
  ["--run SEGMENT_RUN", "the segment run whose segmentations become the SFT set"],
  ["--max-per-problem K", "responses kept per problem, a seeded draw (default 4, the paper's)"],
  ["--include-incorrect", "keep responses whose final answer is not correct too (default: correct ones only)"],
  ["--held-out F", "fraction of problems held out for test (default 0.1)"],
  ...SFT_FLAGS,
];
const EXPORT_SELECTION_FLAGS: readonly Flag[] = [
  ["--run JUDGE_RUN", "the judge run whose chunk scores select the responses"],
  ["--aggregate mean|min|last", "how a response's chunk scores become its score (required)"],
  ["--baseline outcome", "a seeded random correct response instead of the best-judged one (the paper's outcome-only selection)"],
  ["--held-out F", "fraction of problems held out for test (default 0)"],
  ...SFT_FLAGS,
];
const EXPORT_RUN_FLAGS: readonly Flag[] = [
  ["--run RUN", "the run to export"],
  ["--out FILE|-", "the file to write (- for stdout)"],
  ["--detach", "queue the export and return its run id without waiting"],
];

const ENDPOINT_FIELD_FLAGS: readonly Flag[] = [
  ["--name N", "the endpoint's name (runs refer to it)"],
  ["--model M", "the model name the replicas serve"],
  ["--role policy|judge|segmenter", "what runs use it for"],
  ["--url URL", "one replica's OpenAI base URL (…/v1); repeat for each replica"],
  ["--max-concurrency K", "requests in flight per replica (add: default 64)"],
  ["--api-key-env VAR", "read the API key from this environment variable (empty = no key)"],
  ["--prompt-price USD", "USD per 1M prompt tokens (none = no price); runs launched later state their cost"],
  ["--cached-prompt-price USD", "USD per 1M cached prompt tokens (none = no price: they cost the prompt price)"],
  ["--completion-price USD", "USD per 1M completion tokens (none = no price)"],
  ["--protocol ID", "a judge protocol the server speaks (stepwiser-chunk, processbench-critic, thinkprm, genprm, discriminative-prm, outcome-pointwise, outcome-pairwise); repeat or comma-separate; given, the list replaces the stored one (add: default stepwiser-chunk,processbench-critic)"],
  ["--server auto|vllm|sglang|openai-compatible", "the server behind it (add: default auto, read from its model list); off vLLM, a seeded request for K samples is sent as K requests with seeds s+i, so the samples differ"],
];
const ENDPOINT_NAME_FLAG: Flag = ["NAME", "the endpoint's name"];
const AUDITED = "Audited as the first admin user's change.";

const RUN_ID_FLAGS: readonly Flag[] = [["<runId>", "the run"]];

function importHelp(format: string, files: string, example: string): CommandHelp {
  return {
    summary: `Import ${files} files, one dataset per file (or into --dataset), as jobs; waits for them unless --detach.`,
    flags: format === "jsonl" || format === "parquet" ? [...IMPORT_FLAGS, MAP_FLAG] : IMPORT_FLAGS,
    example,
  };
}

export const HELP: Readonly<Record<string, CommandHelp>> = {
  import: {
    summary: "Import dataset files as jobs (formats: processbench, prm800k, math-shepherd, prmbench, jsonl, parquet).",
    flags: [...IMPORT_FLAGS, MAP_FLAG],
    example: "stepwiser import processbench gsm8k.json math.json",
  },
  "import processbench": importHelp("processbench", "ProcessBench JSON", "stepwiser import processbench gsm8k.json math.json"),
  "import prm800k": importHelp("prm800k", "PRM800K JSONL", 'stepwiser import prm800k phase2_train.jsonl --name "PRM800K phase 2" --on-invalid skip'),
  "import math-shepherd": importHelp(
    "math-shepherd",
    "Math-Shepherd JSONL",
    "stepwiser import math-shepherd math-shepherd.jsonl --subset math --on-invalid skip --max-invalid-share 0.01",
  ),
  "import prmbench": importHelp(
    "prmbench",
    "PRMBench JSONL (each <classification>_<idx> item a solution with its error steps as gold labels, plus correct_<idx> from every redundency record, as its evaluator builds them)",
    "stepwiser import prmbench prmbench.jsonl --name PRMBench",
  ),
  "import report": {
    summary: "The records an import skipped as invalid or ignored, as JSON lines (file, line, record, field, reason, kind); the count on stderr.",
    flags: [
      ["<runId>", "the import run"],
      ["-o, --output FILE", "the file to write (default stdout)"],
    ],
    example: "stepwiser import report RUN -o report.jsonl",
  },
  "import jsonl": importHelp("jsonl", "generic JSONL (fields named by --map)", "stepwiser import jsonl data.jsonl --name mine --map problem=question,steps=steps,labels=labels"),
  "import parquet": importHelp(
    "parquet",
    "Parquet (columns named by --map; dotted paths into structs and lists)",
    "stepwiser import parquet train-00000-of-00001.parquet --name mine --map problem=question.problem,answer=question.answer,steps=steps,labels=labels,labelKind=hard",
  ),
  export: {
    summary: "Export a run as files (itself a run, worked here unless --detach): training-set, segmentation-sft, selection, labels or predictions.",
    flags: [...EXPORT_TRAINING_SET_FLAGS.filter(([flag]) => flag !== "--out DIR" && flag !== "--run RUN" && flag !== "--detach"), ...EXPORT_RUN_FLAGS],
    example: "stepwiser export labels --run RUN --out labels.jsonl",
  },
  "export training-set": {
    summary: "A judge training set (Parquet or JSONL, reward function, dataset card, manifest with the launch command) from a run's labels.",
    flags: EXPORT_TRAINING_SET_FLAGS,
    example: "stepwiser export training-set --run RUN --rule rel-ratio --gamma 0.7 --format verl --out training-set/",
  },
  "export segmentation-sft": {
    summary: "The SFT set that teaches a policy to segment its own reasoning (paper §3.1): a segment run's responses, chunk-tagged, correct ones only and at most 4 per problem by default, with a dataset card, manifest and pinned launch command.",
    flags: EXPORT_SEGMENTATION_SFT_FLAGS,
    example: "stepwiser export segmentation-sft --run SEGMENT_RUN --format trl-sft --out segmentation-sft/",
  },
  "export selection": {
    summary: "Stepwise data selection (paper §4.4, Table 8): per problem, the correct response the judge run scores highest (or, with --baseline outcome, a seeded random correct one), as an SFT set with every candidate's score.",
    flags: EXPORT_SELECTION_FLAGS,
    example: "stepwiser export selection --run JUDGE_RUN --aggregate mean --out selection/",
  },
  "export labels": {
    summary: "A run's chunk labels with their confidence, as JSON lines.",
    flags: EXPORT_RUN_FLAGS,
    example: "stepwiser export labels --run RUN --out labels.jsonl",
  },
  "export predictions": {
    summary: "A run's ProcessBench predictions, as JSON lines.",
    flags: EXPORT_RUN_FLAGS,
    example: "stepwiser export predictions --run RUN --out -",
  },
  "processbench score": {
    summary: "ProcessBench acc_err / acc_cor / F1 per subset and their average (with subsets_in_average and average_is_partial), each with its 95 % percentile-bootstrap interval over solutions (the average's stratified by subset).",
    flags: [
      ["--data FILE...", "ProcessBench JSON files (the gold labels)"],
      ["--predictions FILE", 'JSON lines {"id", "prediction"}, e.g. from `run predictions`'],
      ["--resamples N", "bootstrap resamples (100 to 100,000; default 1000, a benchmark run's)"],
      ["--seed S", "bootstrap seed (default 0, a benchmark run's)"],
    ],
    example: "stepwiser processbench score --data gsm8k.json math.json --predictions predictions.jsonl",
  },
  "prmbench score": {
    summary: "PRMBench's PRMScore (0.5 · F1 + 0.5 · negative F1), F1 and negative F1 over the modified items' steps, and per class, exactly as its official evaluator computes them (a correct step is the positive class; -1 where a ratio is undefined).",
    flags: [
      ["--data FILE...", "PRMBench data files, JSON lines as released (records with modified_process, error_steps, idx, classification)"],
      ["--predictions FILE", 'JSON lines {"id": "<classification>_<idx>", "labels": [true|false per step]} (true = the step is correct), e.g. from `run predictions --format prmbench`'],
    ],
    example: "stepwiser prmbench score --data prmbench.jsonl --predictions prmbench-predictions.jsonl",
  },
  grade: {
    summary: "Extract and compare final answers; one JSON object per pair, in input order.",
    flags: [
      ["--gold G --pred P", "one pair: the gold answer and the prediction"],
      ["--problem TEXT", "the problem, with --gold/--pred (in --jsonl, a line's \"problem\" field): a percent then matches a decimal unless it asks for a percentage"],
      ["--jsonl FILE", "pairs as JSON lines {gold, pred, problem?} (- for stdin)"],
      ["--mode boxed|lenient", "boxed reads only boxes and answer phrases; lenient (default) also prose and numbers"],
      ["--time-limit-ms MS", "time limit of one comparison"],
      ["--threads N", "worker threads for --jsonl"],
      ["--details", "add the extraction details"],
    ],
    example: "stepwiser grade --gold '\\frac{1}{2}' --pred 'so the answer is \\boxed{0.5}'",
  },
  label: {
    summary: "Chunk labels from Q-values (or rollout counts, with each label's confidence), and the first error they imply.",
    flags: [
      ...RULE_FLAGS,
      ["--q0 x", "the Q-value before the first chunk"],
      ["--q x1,x2,...", "the Q-values after each chunk"],
      ["--counts s0/m0,s1/m1,...", "rollout counts (successes/rollouts) instead of Q-values"],
      ["--epsilon e", "with --counts: the confidence's tolerance"],
      ["--prior jeffreys|uniform", "with --counts: the prior of the confidence"],
    ],
    example: "stepwiser label --rule rel-ratio --gamma 0.7 --q0 0.5 --q 0.5,0.75,0.25,0,0.5",
  },
  verdict: {
    summary: "Parse a judge output: Positive, Negative or unparseable.",
    flags: [["--file F", "the judge output (- for stdin)"]],
    example: "stepwiser verdict --file judge-output.txt",
  },
  segment: {
    summary: "Baseline segmentation of a solution into chunks with character offsets.",
    flags: [
      ["--method blank-line|step-markers", "the segmentation rule"],
      ["--file F", "the solution text (- for stdin)"],
    ],
    example: "stepwiser segment --method step-markers --file solution.txt",
  },
  "sandbox run": {
    summary: "Run one python block in the sandbox GenPRM's code execution uses; prints {\"stdout\", \"stderr\", \"exitCode\", \"timedOut\"} (exit 0 whenever the sandbox ran it, 1 where code execution is refused).",
    flags: [
      ["--file F", "the python block (- for stdin)"],
      ["--timeout-s N", "wall-time limit in seconds (default 5, at most 60; the CPU limit follows it)"],
      ["--memory-mb M", "address-space limit in MB (default 512)"],
    ],
    example: "stepwiser sandbox run --file block.py --timeout-s 10",
  },
  "sandbox check": {
    summary: "The isolation code blocks run under on this machine (tool and version, namespaces, uid, seccomp, limits, budget), verified by a probe block; or why code execution is refused (exit 1).",
    flags: [],
    example: "stepwiser sandbox check",
  },
  "chunks check": {
    summary: "Check that a <chunk>-tagged segmentation reproduces the original text (exit 1 if not).",
    flags: [
      ["--original F", "the solution text"],
      ["--chunked G", "the same text wrapped in <chunk> tags"],
    ],
    example: "stepwiser chunks check --original solution.txt --chunked segmented.txt",
  },
  run: {
    summary: "Launch a run of a kind (annotate, judge, segment, generate, benchmark, best-of-n, chunk-reset) and follow it; or act on a run (cancel, resume, status, predictions, relabel).",
    flags: [
      ["--config FILE.json", "the run's configuration"],
      ["--detach", "only queue the run; do not follow it or work the queue here"],
      ["--offline", "annotate, judge: only create the run, for batch export/import"],
      ["--dry-run", "check the configuration as a submission would (exit 2 with the located error) and print {\"kind\", \"config\"} with every default applied; stores and queues nothing"],
      ["--preset ID", "annotate: the paper's label settings, paper-1.5b (γ 0.8, α 0.4) or paper-7b (γ 0.7, α 0.8), as the run's labelRules"],
      ["--name NAME", "what to call the run (default: kind, model and key parameters, e.g. \"judge · sim-judge-strong · K=3\")"],
      ["--tag TAG", "a tag; repeat the flag or separate tags with commas"],
      ["--notes TEXT", "Markdown notes on the run"],
    ],
    example: 'stepwiser run judge --config judge.json --name "strong judge, prompt v2" --tag baseline',
  },
  "run list": {
    summary: 'One page of runs, newest first, as {"runs": [...], "nextOffset"} (the runs as the REST API lists them; nextOffset null on the last page). Imports and exports are listed only with --kind or --include-data-jobs, as on the Runs page.',
    synopsis: ["run list [--kind K] [--status S] [--limit N] [--offset N] [--include-data-jobs]"],
    flags: [
      ["--kind K", "only runs of this kind (import, generate, segment, annotate, judge, benchmark, chunk-reset, best-of-n, export)"],
      ["--status S", "only runs in this status (queued, running, completed, completed_with_failures, failed, cancelled)"],
      ["--limit N", "runs in the page (1–200, default 50)"],
      ["--offset N", "runs to skip: the previous page's nextOffset (default 0)"],
      ["--include-data-jobs", "also list imports and exports"],
    ],
    example: "stepwiser run list --kind judge --status completed --limit 5",
  },
  "run launch": {
    summary: "The same as `run <kind> …`: launch a run of a kind and follow it (flags as `run --help` lists them).",
    synopsis: ["run launch <kind> --config FILE.json [--detach | --offline] [--name N] [--tag T …] [--notes TEXT]"],
    flags: [
      ["<kind>", "annotate, judge, segment, generate, benchmark, best-of-n or chunk-reset"],
      ["--config FILE.json", "the run's configuration"],
      ["--detach", "only queue the run; do not follow it"],
      ["--offline", "annotate, judge: only create the run, for batch export/import"],
      ["--name NAME", "what to call the run"],
      ["--tag TAG", "a tag; repeat the flag or separate tags with commas"],
      ["--notes TEXT", "Markdown notes on the run"],
    ],
    example: "stepwiser run launch judge --config judge.json --url https://studio.example.org --token \"$STEPWISER_TOKEN\"",
  },
  "run edit": {
    summary: "Rename a run or change its tags or notes (recorded in the audit log as the first admin).",
    synopsis: ["run edit <runId> [--name NAME | --generated-name] [--tag TAG … | --no-tags] [--notes TEXT]"],
    flags: [
      ...RUN_ID_FLAGS,
      ["--name NAME", "the new name"],
      ["--generated-name", "go back to the name generated from kind, model and key parameters"],
      ["--tag TAG", "the run's tags from now on (replacing the old ones); repeat or separate with commas"],
      ["--no-tags", "remove every tag"],
      ["--notes TEXT", "the run's Markdown notes from now on"],
    ],
    example: 'stepwiser run edit RUN --name "judge K=3, seed 2" --tag ablation --tag seeds',
  },
  "run cancel": {
    summary: "Request that a run be cancelled.",
    synopsis: ["run cancel <runId>"],
    flags: RUN_ID_FLAGS,
    example: "stepwiser run cancel RUN",
  },
  "run resume": {
    summary: "Resume a cancelled or failed run and follow it, working the queue here unless --detach.",
    synopsis: ["run resume <runId> [--detach]"],
    flags: [...RUN_ID_FLAGS, ["--detach", "only queue the run again; do not follow it"]],
    example: "stepwiser run resume RUN",
  },
  "run status": {
    summary: "Follow a run's progress until it ends (without working the queue), then print its final status.",
    synopsis: ["run status <runId>"],
    flags: RUN_ID_FLAGS,
    example: "stepwiser run status RUN",
  },
  "run predictions": {
    summary: 'A run\'s predictions as JSON lines: ProcessBench\'s {"id", "prediction"} (the input of `processbench score`), or with --format prmbench, for a benchmark or judge run on a PRMBench import, {"id", "labels"} per item (the input of `prmbench score`; items whose output cannot be read as step labels are left out and counted on stderr).',
    synopsis: ["run predictions <runId> [--format processbench|prmbench]"],
    flags: [...RUN_ID_FLAGS, ["--format processbench|prmbench", "what the lines hold (default processbench)"]],
    example: "stepwiser run predictions RUN --format prmbench > prmbench-predictions.jsonl",
  },
  "run relabel": {
    summary: "Label an annotate run's chunks again with another rule, from its stored Q-values (no requests).",
    synopsis: ["run relabel <runId> --rule R [--gamma x | --alpha x --n k]"],
    flags: [...RUN_ID_FLAGS, ...RULE_FLAGS],
    example: "stepwiser run relabel RUN --rule rel-ratio --gamma 0.8",
  },
  plan: {
    summary: "Estimate a run before launching it (only annotate is planned).",
    flags: [],
    example: "stepwiser plan annotate --config annotate.json --tokens-per-second 20000",
  },
  "plan annotate": {
    summary: "Estimate an annotate run: requests, rollouts, prompt and generated tokens, hours; one JSON object.",
    flags: [
      ["--config FILE.json", "the config `run annotate` would take"],
      ["--tokens-per-second N", "the cluster's generated tokens per second"],
      ["--prefill-tokens-per-second N", "its prompt tokens per second (adds prefill time)"],
    ],
    example: "stepwiser plan annotate --config annotate.json --tokens-per-second 20000",
  },
  prior: {
    summary: "Label confidence's prior (only fit).",
    flags: [],
    example: "stepwiser prior fit --run RUN",
  },
  "prior fit": {
    summary: "Fit label confidence's mixture prior to an annotate run's rollout counts; one JSON object for labelConfidence.mixture.",
    flags: [["--run RUN", "an annotate run with rollout counts"]],
    example: "stepwiser prior fit --run RUN",
  },
  batch: {
    summary: "Offline runs through `vllm run-batch`: export their requests, import the outputs.",
    flags: [["-o, --output FILE", "export: the batch file (default stdout)"]],
    example: "stepwiser batch export RUN -o requests.jsonl",
  },
  "batch export": {
    summary: "The requests an offline run still needs, as an OpenAI batch file (the count on stderr).",
    flags: [
      ["<runId>", "an offline run (`run annotate|judge --offline`)"],
      ["-o, --output FILE", "the batch file (default stdout)"],
    ],
    example: "stepwiser batch export RUN -o requests.jsonl",
  },
  "batch import": {
    summary: "Store a `vllm run-batch` output for the run, execute it and print its final status.",
    flags: [
      ["<runId>", "the offline run"],
      ["<output.jsonl>", "the output of `vllm run-batch`"],
    ],
    example: "stepwiser batch import RUN results.jsonl",
  },
  endpoint: {
    summary: `Inference endpoints on the configured database, without the browser: list, add, update, remove, test. ${AUDITED}`,
    flags: ENDPOINT_FIELD_FLAGS,
    example: "stepwiser endpoint list",
  },
  "endpoint list": {
    summary: "Every endpoint as one JSON array (hasApiKey says whether a key is stored; the key is never printed).",
    synopsis: ["endpoint list"],
    flags: [],
    example: "stepwiser endpoint list",
  },
  "endpoint add": {
    summary: `Add an endpoint; prints it as JSON, without its key. ${AUDITED}`,
    synopsis: ["endpoint add --name N --model M --role policy|judge|segmenter --url URL [--url URL]... [--max-concurrency K] [--api-key-env VAR] [--prompt-price USD] [--cached-prompt-price USD] [--completion-price USD] [--protocol ID]... [--server KIND]"],
    flags: ENDPOINT_FIELD_FLAGS,
    example: "stepwiser endpoint add --name policy-a --model Qwen/Qwen2.5-7B-Instruct --role policy --url http://gpu1:8000/v1 --url http://gpu2:8000/v1 --api-key-env VLLM_KEY",
  },
  "endpoint update": {
    summary: `Change an endpoint's fields (absent flags are kept; an empty key variable removes the key). ${AUDITED}`,
    synopsis: ["endpoint update NAME [--name N] [--model M] [--role R] [--url URL]... [--max-concurrency K] [--api-key-env VAR] [--prompt-price USD] [--cached-prompt-price USD] [--completion-price USD] [--protocol ID]... [--server KIND]"],
    flags: [ENDPOINT_NAME_FLAG, ...ENDPOINT_FIELD_FLAGS.map(([flag, meaning]): Flag => [flag, flag === "--name N" ? "a new name" : meaning])],
    example: "stepwiser endpoint update policy-a --max-concurrency 128 --prompt-price 0.15 --completion-price 0.6",
  },
  "endpoint remove": {
    summary: `Remove an endpoint (runs already launched keep their snapshot of it). ${AUDITED}`,
    synopsis: ["endpoint remove NAME"],
    flags: [ENDPOINT_NAME_FLAG],
    example: "stepwiser endpoint remove policy-a",
  },
  "endpoint test": {
    summary: "Probe each replica (GET …/models with the stored key, and /health); prints the result as JSON, exit 1 unless every replica serves the model.",
    synopsis: ["endpoint test NAME"],
    flags: [ENDPOINT_NAME_FLAG],
    example: "stepwiser endpoint test policy-a",
  },
  "sim dataset": {
    summary: "A dataset of simulated-world problems and sim-policy solutions with their ground truth.",
    flags: [
      ["--name N", "the dataset's name"],
      ["--problems N", "problems (default 100)"],
      ["--solutions N", "solutions per problem (default 4)"],
      ["--seed S", "the seed"],
      ["--error-rate p", "probability of an error in a step"],
      ["--recovery-rate q", "probability of recovering from an error"],
    ],
    example: 'stepwiser sim dataset --name "sim 200" --problems 200 --solutions 4',
  },
  "sim run-batch": {
    summary: "`vllm run-batch` against a simulated cluster.",
    flags: [
      ["-i, --input-file IN.jsonl", "the batch file"],
      ["-o, --output-file OUT.jsonl", "the output file"],
      ["--url URL", "a replica's …/v1"],
      ["--concurrency N", "requests in flight"],
      ["--api-key KEY", "the API key to send"],
    ],
    example: "stepwiser sim run-batch -i requests.jsonl -o results.jsonl --url http://127.0.0.1:8100/v1",
  },
  "sim-cluster": {
    summary: "Run simulated vLLM replicas until Ctrl-C; prints their URLs as one JSON line.",
    flags: [
      ["--replicas N", "how many replicas"],
      ["--port P", "the first replica's port"],
      ["--config FILE", "a JSON cluster configuration"],
      ["--time-scale X", "speed of simulated time"],
      ["--dialect vllm|sglang", "answer like vLLM (default) or SGLang: matched_stop, one seed for every parallel sample, SGLang's metric names"],
    ],
    example: "stepwiser sim-cluster --replicas 4 --port 8100",
  },
};

/** USAGE's synopsis lines, one array per command entry (continuation lines included). */
function usageEntries(): string[][] {
  const entries: string[][] = [];
  for (const line of USAGE.split("\n")) {
    if (/^ {2}\S/.test(line)) entries.push([line.trim()]);
    else if (/^ {9}\S/.test(line)) entries.at(-1)?.push(line.trim());
  }
  return entries;
}

/**
 * The synopsis of command `name` from USAGE: the entries whose first word is the
 * command's and whose second, if the name has one, is or lists the subcommand
 * (`import processbench|…|jsonl` for "import jsonl", printed as `import jsonl`).
 */
export function synopsisOf(name: string): string[] {
  const own = HELP[name]?.synopsis;
  if (own) return [...own];
  const [first, second] = name.split(" ");
  const lines: string[] = [];
  for (const [head, ...continued] of usageEntries()) {
    const words = head!.split(" ");
    if (words[0] !== first) continue;
    if (second !== undefined) {
      if (!words[1]?.split("|").includes(second)) continue;
      words[1] = second;
    }
    lines.push(words.join(" "), ...continued.map((line) => `  ${line}`));
  }
  return lines;
}

/** The flags of remote mode, listed in the help of every command that has one. */
const REMOTE_FLAGS: readonly Flag[] = [
  ["--url URL", "remote mode: the studio's address (default STEPWISER_URL); with a token, the command goes through its REST API"],
  ["--token TOKEN", "remote mode: an API token from the studio's Settings → API tokens (default STEPWISER_TOKEN); never printed"],
];

/** Whether help entry `name` is a command remote mode runs (the others need the database, or none). */
export function hasRemoteMode(name: string): boolean {
  const [first, second] = name.split(" ");
  if (first === "run") return second !== "relabel" && second !== "edit";
  if (first === "export" || first === "import") return true;
  return name === "endpoint list";
}

/** `<command> --help`: synopsis, summary, flags (one line each) and an example. */
export function renderHelp(name: string): string {
  const help = HELP[name];
  if (!help) throw new Error(`no help for command "${name}"`);
  const synopsis = synopsisOf(name);
  if (synopsis.length === 0) throw new Error(`no synopsis for command "${name}" in USAGE`);
  const flags: Flag[] = [...help.flags, ...(hasRemoteMode(name) ? REMOTE_FLAGS : []), ["-h, --help", "print this help"]];
  const width = Math.max(...flags.map(([flag]) => flag.length));
  return [
    ...synopsis.map((line, i) => `${i === 0 ? "usage:" : "      "} ${line.startsWith("  ") ? `          ${line}` : `stepwiser ${line}`}`),
    "",
    help.summary,
    "",
    "flags:",
    ...flags.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`),
    "",
    "example:",
    `  ${help.example}`,
    "",
  ].join("\n");
}

/**
 * The help entry for a command line: `command` (a name from the commands map) and
 * the words after it, extended by each leading word that names a subcommand
 * (`run relabel RUN --help` is "run relabel"; `run annotate --help` is "run").
 */
export function helpNameFor(command: string, rest: readonly string[]): string {
  let name = command;
  for (const word of rest) {
    if (!HELP[`${name} ${word}`]) break;
    name = `${name} ${word}`;
  }
  return name;
}

/** The long flags (without "--") help entry `name` lists, e.g. ["config", "detach"] for "run". */
export function listedFlagNames(name: string): string[] {
  const names = (HELP[name]?.flags ?? []).flatMap(([flag]) => [...flag.matchAll(/--([a-z0-9][a-z0-9-]*)/g)].map((m) => m[1]!));
  return [...new Set(names)];
}

/** Whether a command's arguments ask for help (`--help` or `-h` before any `--`). */
export function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}
