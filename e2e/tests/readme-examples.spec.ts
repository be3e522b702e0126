import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, request as newRequest, test } from "@playwright/test";
import config, { ADMIN_EMAIL } from "../playwright.config";
import { signIn } from "./sign-in";

/*
 * Every ```bash example of README.md, run against the started app: read from
 * the README when the test runs, each command's placeholders replaced from the
 * map below (a real id, the app's address, a token made in the app, or a small
 * fixture file in a temporary folder), run, and checked: its exit status, and
 * what the README says it prints. A command, placeholder or file name the map
 * does not cover fails the test, naming the README line, so no example can be
 * added without being run. CLI commands share the app's embedded database
 * (STEPWISER_DATA_DIR, as the CLI resolves it).
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const baseURL = config.use!.baseURL!;
const README = "README.md";
const DEMO_ANNOTATE = "Demo: Monte-Carlo labels (sim-policy), M=8";
const DEMO_QUEUE = "Demo: least confident Monte-Carlo labels";

interface Command {
  /** README.md line of its first line. */
  line: number;
  text: string;
  /** What the README shows it printing: a `# …` comment line holding JSON right after it. */
  expected?: string;
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What the commands learn from the app and from each other. */
interface Context {
  dir: string;
  token: string;
  demoAnnotateId: string;
  demoQueueId: string;
  tinyDatasetId: string;
  freePort: number;
  /** An offline judge run, queued for nothing: the tRPC examples read and cancel it. */
  offlineRunId: string;
  /** The last import run that skipped invalid records (`import report RUN_ID` reads its report). */
  skipImportRunId?: string;
  /** A finished verl training-set export of the demo annotate run, and its train.parquet. */
  exportRunId: string;
  exportFile: { fileId: string; sizeBytes: number };
  /** The file the REST example uploaded (the import example imports it). */
  uploadedFileId?: string;
  /** The README's progress line example, as a pattern. */
  progressLine: RegExp;
  /** A GET of the REST API with the token. */
  getJson: <T>(url: string) => Promise<T>;
}

/** The ```bash blocks of the README, split into commands (continuation lines and here-documents joined). */
function readmeCommands(markdown: string): Command[][] {
  const lines = markdown.split("\n");
  const blocks: Command[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```bash\s*$/.test(lines[i]!)) continue;
    const block: Command[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) {
      const start = i;
      let text = lines[i]!;
      if (!text.trim()) continue;
      if (/^\s*#/.test(text)) {
        const shown = /^\s*#\s*([[{].*)$/.exec(text);
        if (shown && block.length > 0) block[block.length - 1]!.expected = shown[1]!.trim();
        continue;
      }
      while (text.endsWith("\\") && i + 1 < lines.length) text = `${text.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
      const heredoc = /<<-?\s*'?(\w+)'?/.exec(text);
      if (heredoc) {
        while (i + 1 < lines.length && lines[i]!.trim() !== heredoc[1]) text += `\n${lines[++i]!}`;
      }
      block.push({ line: start + 1, text });
    }
    blocks.push(block);
  }
  return blocks;
}

/** A placeholder the README uses, and what stands for it here (in the commands matching `only`, when given). */
interface Placeholder {
  pattern: RegExp;
  what: string;
  value: (ctx: Context, match: string) => string;
  only?: RegExp;
}

const PLACEHOLDERS: Placeholder[] = [
  { pattern: /sw_…/g, what: "an API token", value: (ctx) => ctx.token },
  { pattern: /http:\/\/localhost:3000|https:\/\/studio\.example\.org/g, what: "the app's address", value: () => baseURL },
  { pattern: /\/runs\/<runId>\/labels/g, what: "the demo annotate run's labels", value: (ctx) => `/runs/${ctx.demoAnnotateId}/labels` },
  { pattern: /"id":"<runId>"/g, what: "an offline judge run (queued, so it can be cancelled)", value: (ctx) => `"id":"${ctx.offlineRunId}"` },
  { pattern: /"fileIds":\["<fileId>"\]/g, what: "the file the REST example uploaded", value: (ctx) => `"fileIds":["${need(ctx.uploadedFileId, "the file the REST example uploaded")}"]` },
  { pattern: /\/exports\/<exportRunId>\/files/g, what: "a finished training-set export", value: (ctx) => `/exports/${ctx.exportRunId}/files` },
  { pattern: /\/files\/<fileId>/g, what: "the training-set export's train.parquet", value: (ctx) => `/files/${ctx.exportFile.fileId}` },
  { pattern: /(?<=export labels --run )RUN\b/g, what: "the demo annotate run", value: (ctx) => ctx.demoAnnotateId },
  { pattern: /<datasetId>/g, what: "the one-solution simulated dataset (a judge run on it costs next to nothing)", value: (ctx) => ctx.tinyDatasetId },
  { pattern: /<queueId>/g, what: "the demo annotation queue", value: (ctx) => ctx.demoQueueId },
  { pattern: /"datasetId": "…"/g, what: "a one-solution simulated dataset", value: (ctx) => `"datasetId": "${ctx.tinyDatasetId}"` },
  { pattern: /\bimport report RUN_ID\b/g, what: "the import that skipped invalid records", value: (ctx) => `import report ${need(ctx.skipImportRunId, "an import run with --on-invalid skip")}` },
  // The ProcessBench seed files hold 1,400 solutions: the import example reads two of each (the fixtures below) instead.
  {
    pattern: /packages\/db\/seed\/processbench\/(?:gsm8k|math)\.json/g,
    what: "two solutions of each ProcessBench seed file",
    value: (_ctx, match) => `tiny-${path.basename(match)}`,
    only: /^bin\/stepwiser import processbench /,
  },
  { pattern: /--problems 200 --solutions 4/g, what: "a simulated dataset's size", value: () => "--problems 2 --solutions 1" },
  { pattern: /--port 8100/g, what: "the simulated cluster's port", value: (ctx) => `--port ${ctx.freePort}` },
];

/**
 * What is left of a placeholder after the map's substitutions: `<name>` or `…` anywhere, and, among the
 * shell's words (not a here-document's text), an argument in capitals such as RUN or RUN_ID. An unknown one fails the test.
 */
function leftOver(text: string): string | undefined {
  const [shell = ""] = text.split("\n");
  return (/<[A-Za-z][\w-]*>|…/.exec(text) ?? /(?<=^|\s)(?!(?:POST|GET|EOF)(?:\s|$))[A-Z][A-Z0-9_]*(?=\s|$)/.exec(shell))?.[0];
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not known yet: an example that makes it must come first in README.md`);
  return value;
}

function substitute(command: string, ctx: Context): string {
  let text = command;
  for (const placeholder of PLACEHOLDERS) {
    if (!placeholder.only || placeholder.only.test(command)) text = text.replace(placeholder.pattern, (match) => placeholder.value(ctx, match));
  }
  return text;
}

/** The small files the examples name, written into the examples' folder. */
function writeFixtures(dir: string, tinyDatasetId: string): void {
  const seed = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, "packages/db/seed/processbench", name), "utf8")) as unknown[];
  writeFileSync(path.join(dir, "tiny-gsm8k.json"), JSON.stringify(seed("gsm8k.json").slice(0, 2)));
  writeFileSync(path.join(dir, "tiny-math.json"), JSON.stringify(seed("math.json").slice(0, 2)));
  copyFileSync(path.join(repoRoot, "packages/core/test/fixtures/imports/prm800k-phase2.jsonl"), path.join(dir, "phase2_train.jsonl"));
  copyFileSync(path.join(repoRoot, "packages/core/test/fixtures/imports/math-shepherd.jsonl"), path.join(dir, "math-shepherd.jsonl"));
  // A Hugging Face Hub style Parquet file (a question struct, step and label lists), written by the jobs tests' Parquet writer.
  const hub = [
    { problem: "What is 2 + 3?", answer: "5", steps: ["2 + 3 = 5.", "The answer is 5."], labels: [true, true] },
    { problem: "What is 4 * 2?", answer: "8", steps: ["4 * 2 = 6.", "The answer is 6."], labels: [false, false] },
  ];
  const parquet = spawnSync(process.execPath, ["--import", "tsx", "packages/jobs/test/hub-parquet.ts", path.join(dir, "train-00000-of-00001.parquet"), JSON.stringify(hub)], { cwd: repoRoot, encoding: "utf8" });
  if (parquet.status !== 0) throw new Error(`writing the Parquet fixture failed: ${parquet.stderr}`);
  writeFileSync(path.join(dir, "processbench-gsm8k.json"), JSON.stringify(seed("gsm8k.json").slice(2, 4)));
  writeFileSync(path.join(dir, "predictions.jsonl"), '{"id": "gsm8k-0", "prediction": -1}\n{"id": "math-0", "prediction": 1}\n');
  writeFileSync(path.join(dir, "solution.txt"), "Step 1: 2 + 3 = 5.\nStep 2: 5 * 2 = 10.\nThe answer is \\boxed{10}.\n");
  writeFileSync(path.join(dir, "segmented.txt"), "<chunk>Step 1: 2 + 3 = 5.</chunk>\n<chunk>Step 2: 5 * 2 = 10.\nThe answer is \\boxed{10}.</chunk>\n");
  writeFileSync(path.join(dir, "judge-output.txt"), "The chunk computes 5 * 2 = 10 correctly.\n\\boxed{Positive}\n");
  // Remote mode's launch example: a strong judge with three votes, on the one-solution dataset.
  writeFileSync(path.join(dir, "judge.json"), JSON.stringify({ datasetId: tinyDatasetId, judgeEndpoint: "sim-judge-strong", samples: 3, temperature: 1 }));
}

/** File names a command reads: each must be a fixture, a file of the checkout, or one an earlier example wrote. */
function filesRead(command: string): string[] {
  const words = command.split(/\s+/);
  return words
    .filter((word, i) => /^@?[\w./-]+\.(?:jsonl?|txt|parquet|md)$/.test(word) && !["-o", ">", "--out"].includes(words[i - 1] ?? ""))
    .map((word) => word.replace(/^@/, ""));
}

const json = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => json(line));

interface Example {
  /** The README command this covers. */
  match: RegExp;
  /** Not run by this test: why. */
  notRun?: string;
  /** Runs until stopped: started, checked on its first line of output, then stopped. */
  longRunning?: boolean;
  check?: (result: Result, ctx: Context) => void | Promise<void>;
}

const importSummary = (result: Result) => json<{ runs: { runId: string; status: string; written: number; report: { policy: string } }[] }>(result.stdout);

const EXAMPLES: Example[] = [
  { match: /^npm start\b/, notRun: "the launcher this suite starts the app with (playwright.config.ts webServer)" },
  { match: /^npm test\b/, notRun: "the whole suite, this test included" },
  { match: /^export DATABASE_URL=postgresql:\/\/…/, notRun: "a deployment on an external PostgreSQL (docs/DEPLOYMENT.md; the launcher tests cover setup, web and worker)" },
  { match: /^npm run (setup|web|worker)\b/, notRun: "a deployment on an external PostgreSQL" },
  { match: /^STEPWISER_AUTH_SECRET=… .*npm run web\b/, notRun: "a deployment on an external PostgreSQL" },
  { match: /^vllm serve /, notRun: "a GPU inference server (the simulated cluster stands for it here)" },
  { match: /^python -m sglang\.launch_server /, notRun: "a GPU inference server (the simulated cluster stands for it here)" },
  {
    match: /^bin\/stepwiser import processbench packages\/db\/seed\/processbench\/gsm8k\.json packages\/db\/seed\/processbench\/math\.json$/,
    check: (result) => {
      expect(existsSync(path.join(repoRoot, "packages/db/seed/processbench/gsm8k.json")) && existsSync(path.join(repoRoot, "packages/db/seed/processbench/math.json"))).toBe(true);
      expect(importSummary(result).runs.map((r) => [r.status, r.written])).toEqual([
        ["completed", 2],
        ["completed", 2],
      ]);
    },
  },
  { match: /^bin\/stepwiser import prm800k phase2_train\.jsonl /, check: (result) => expect(importSummary(result).runs.map((r) => r.status)).toEqual(["completed"]) },
  { match: /^bin\/stepwiser import parquet train-00000-of-00001\.parquet /, check: (result) => expect(importSummary(result).runs.map((r) => [r.status, r.written])).toEqual([["completed", 2]]) },
  {
    match: /^bin\/stepwiser import math-shepherd math-shepherd\.jsonl --on-invalid skip /,
    check: (result, ctx) => {
      const [run] = importSummary(result).runs;
      expect([run?.status, run?.report.policy]).toEqual(["completed", "skip"]);
      ctx.skipImportRunId = run!.runId;
    },
  },
  {
    match: /^bin\/stepwiser import report RUN_ID -o report\.jsonl$/,
    check: (result, ctx) => {
      expect(result.stderr).toContain(`report entries of import run ${ctx.skipImportRunId} written to report.jsonl`);
      expect(existsSync(path.join(ctx.dir, "report.jsonl"))).toBe(true);
    },
  },
  { match: /^bin\/stepwiser grade --gold /, check: (result) => expect(json(result.stdout)).toMatchObject({ equivalent: true, reason: "numeric", rule: "boxed" }) },
  {
    match: /^bin\/stepwiser processbench score --data /,
    check: (result) => expect(json(result.stdout)).toMatchObject({ subsets: { gsm8k: { n: 400 }, math: { n: 1000 } }, subsets_in_average: ["gsm8k", "math"], average_is_partial: true }),
  },
  { match: /^bin\/stepwiser label --rule rel-ratio --gamma 0\.7 --q0 / },
  { match: /^bin\/stepwiser label --rule rel-ratio --gamma 0\.7 --counts / },
  { match: /^bin\/stepwiser segment --method step-markers --file solution\.txt$/, check: (result) => expect(json(result.stdout)).toMatchObject({ method: "step-markers", chunk_count: 2 }) },
  { match: /^bin\/stepwiser chunks check --original solution\.txt --chunked segmented\.txt$/, check: (result) => expect(json(result.stdout)).toMatchObject({ valid: true, chunk_count: 2 }) },
  { match: /^bin\/stepwiser verdict --file judge-output\.txt$/, check: (result) => expect(json(result.stdout)).toMatchObject({ verdict: "Positive" }) },
  {
    match: /^echo '\{"datasetId": "…", .*\}' > annotate\.json$/,
    check: (_result, ctx) => expect(json(readFileSync(path.join(ctx.dir, "annotate.json"), "utf8"))).toMatchObject({ datasetId: ctx.tinyDatasetId, policyEndpoint: "sim-policy" }),
  },
  {
    match: /^bin\/stepwiser run annotate --config annotate\.json --name "pilot, M=16" --tag pilot$/,
    check: async (result, ctx) => {
      const printed = json<{ runId: string }>(result.stdout);
      expect(printed).toMatchObject({ kind: "annotate", status: "completed" });
      expect(await ctx.getJson(`/api/v1/runs/${printed.runId}`)).toMatchObject({ name: "pilot, M=16", tags: ["pilot"], datasetId: ctx.tinyDatasetId, status: "completed" });
      // Its progress on stderr, a plain line per change here (not a terminal), in the shape the README shows.
      expect(result.stderr.split("\n").some((line) => ctx.progressLine.test(line)), `no progress line of the README's shape ${ctx.progressLine} in:\n${result.stderr}`).toBe(true);
    },
  },
  {
    match: /^bin\/stepwiser plan annotate --config annotate\.json --tokens-per-second 20000$/,
    check: (result) => {
      const plan = json<{ dataset: { solutions: number }; estimate: { rollouts: number; hours: number } }>(result.stdout);
      expect(plan.dataset.solutions).toBe(1);
      expect(plan.estimate.rollouts).toBeGreaterThan(0);
    },
  },
  { match: /^bin\/stepwiser sim dataset --name "sim 200" /, check: (result) => expect(json(result.stdout)).toMatchObject({ solutions: 2 }) },
  {
    match: /^bin\/stepwiser sim-cluster --replicas 4 --port 8100$/,
    longRunning: true,
    check: (result) => expect(JSON.stringify(json(result.stdout.split("\n")[0]!)).match(/http:\/\/[\w.:]+/g)).toHaveLength(4),
  },
  { match: /^export STEPWISER_URL=http:\/\/localhost:3000 STEPWISER_TOKEN=sw_…$/ },
  { match: /^export STEPWISER_URL=https:\/\/studio\.example\.org STEPWISER_TOKEN=sw_…$/ },
  {
    match: /^bin\/stepwiser run list --kind annotate --status completed --limit 5$/,
    check: (result) => {
      const runs = json<{ runs: { kind: string; status: string }[] }>(result.stdout).runs;
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.length).toBeLessThanOrEqual(5);
      expect(runs.every((r) => r.kind === "annotate" && r.status === "completed")).toBe(true);
    },
  },
  {
    match: /^bin\/stepwiser run launch judge --config judge\.json --name "strong judge, K=3"$/,
    check: async (result, ctx) => {
      const printed = json<{ runId: string }>(result.stdout);
      expect(printed).toMatchObject({ kind: "judge", status: "completed" });
      expect(await ctx.getJson(`/api/v1/runs/${printed.runId}`)).toMatchObject({ name: "strong judge, K=3", datasetId: ctx.tinyDatasetId, config: { samples: 3 } });
    },
  },
  {
    match: /^bin\/stepwiser export labels --run RUN --out labels\.jsonl$/,
    check: (_result, ctx) => expect(new Set(lines(path.join(ctx.dir, "labels.jsonl")).map((l) => l.run_id))).toEqual(new Set([ctx.demoAnnotateId])),
  },
  { match: /^export STEPWISER_TOKEN=sw_…$/ },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" "\$STEPWISER_URL\/api\/v1\/runs\?kind=annotate&status=completed"$/,
    check: (result, ctx) => {
      const page = json<{ items?: { id: string; kind: string }[]; runs?: { id: string; kind: string }[] }>(result.stdout);
      const runs = page.runs ?? page.items ?? [];
      expect(runs.every((r) => r.kind === "annotate")).toBe(true);
      expect(runs.map((r) => r.id)).toContain(ctx.demoAnnotateId);
    },
  },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" -o labels\.jsonl "\$STEPWISER_URL\/api\/v1\/runs\/<runId>\/labels"$/,
    check: (_result, ctx) => {
      const labels = lines(path.join(ctx.dir, "labels.jsonl"));
      expect(labels.length).toBeGreaterThan(24);
      expect(new Set(labels.map((l) => l.run_id))).toEqual(new Set([ctx.demoAnnotateId]));
    },
  },
  {
    match: /^curl -X POST -H "Authorization: Bearer \$STEPWISER_TOKEN" -H "content-type: application\/json" "\$STEPWISER_URL\/api\/v1\/runs" -d '\{"kind":"judge",/,
    check: (result, ctx) => {
      const run = json<{ id: string; kind: string; status: string; datasetId: string }>(result.stdout);
      expect(run).toMatchObject({ kind: "judge", status: "queued", datasetId: ctx.tinyDatasetId });
    },
  },
  {
    match: /^curl -X POST -H "Authorization: Bearer \$STEPWISER_TOKEN" -H "content-type: application\/octet-stream" --data-binary @processbench-gsm8k\.json "\$STEPWISER_URL\/api\/v1\/uploads\?fileName=processbench-gsm8k\.json"$/,
    check: (result, ctx) => {
      const uploaded = json<{ fileId: string; fileName: string; sizeBytes: number; sha256: string }>(result.stdout);
      const bytes = readFileSync(path.join(ctx.dir, "processbench-gsm8k.json"));
      expect(uploaded).toMatchObject({ fileName: "processbench-gsm8k.json", sizeBytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
      ctx.uploadedFileId = uploaded.fileId;
    },
  },
  {
    match: /^curl -X POST -H "Authorization: Bearer \$STEPWISER_TOKEN" -H "content-type: application\/json" "\$STEPWISER_URL\/api\/v1\/imports" -d '\{"format":"processbench","fileIds":\["<fileId>"\]\}'$/,
    check: (result) => expect(json<{ runs: { kind: string }[] }>(result.stdout).runs.map((r) => r.kind)).toEqual(["import"]),
  },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" "\$STEPWISER_URL\/api\/v1\/exports\/<exportRunId>\/files"$/,
    check: (result, ctx) => expect(json<{ files: { fileId: string; name: string }[] }>(result.stdout).files.find((f) => f.name === "train.parquet")?.fileId).toBe(ctx.exportFile.fileId),
  },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" -o train\.parquet "\$STEPWISER_URL\/api\/v1\/files\/<fileId>"$/,
    check: (_result, ctx) => {
      const parquet = readFileSync(path.join(ctx.dir, "train.parquet"));
      expect([parquet.length, parquet.subarray(0, 4).toString("latin1")]).toEqual([ctx.exportFile.sizeBytes, "PAR1"]);
    },
  },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" http:\/\/localhost:3000\/api\/trpc\/me\.get$/,
    check: (result) => expect(json<{ result: { data: { json: { email: string } } } }>(result.stdout).result.data.json.email).toBe(ADMIN_EMAIL),
  },
  {
    match: /^curl -G -H "Authorization: Bearer \$STEPWISER_TOKEN" http:\/\/localhost:3000\/api\/trpc\/run\.get /,
    check: (result, ctx) => expect(json<{ result: { data: { json: { id: string } } } }>(result.stdout).result.data.json.id).toBe(ctx.offlineRunId),
  },
  {
    match: /^curl -X POST -H "Authorization: Bearer \$STEPWISER_TOKEN" -H "content-type: application\/json" http:\/\/localhost:3000\/api\/trpc\/run\.cancel /,
    check: async (result, ctx) => {
      expect(json<{ result: { data: unknown } }>(result.stdout).result.data).toBeDefined();
      const run = await ctx.getJson<{ status: string; cancelRequestedAt: string | null }>(`/api/v1/runs/${ctx.offlineRunId}`);
      expect(run.status === "cancelled" || run.cancelRequestedAt !== null, JSON.stringify(run)).toBe(true);
    },
  },
  {
    match: /^curl -H "Authorization: Bearer \$STEPWISER_TOKEN" -o labels\.jsonl http:\/\/localhost:3000\/api\/annotation-queues\/<queueId>\/labels$/,
    check: (_result, ctx) => expect(lines(path.join(ctx.dir, "labels.jsonl")).length).toBeGreaterThan(0),
  },
  {
    match: /^pip install --no-build-isolation --no-deps --target ~\/\.local\/lib\/stepwiser clients\/python$/,
    check: (result, ctx) => {
      expect(result.stdout).toContain("Successfully installed stepwiser-");
      expect(existsSync(path.join(ctx.dir, ".local/lib/stepwiser/stepwiser/__init__.py"))).toBe(true);
    },
  },
  { match: /^export PYTHONPATH=~\/\.local\/lib\/stepwiser STEPWISER_URL=http:\/\/localhost:3000 STEPWISER_TOKEN=sw_…$/ },
  {
    match: /^python3 - <<'EOF'\nimport stepwiser\n/,
    check: (result) => expect(/^([1-9]\d*) chunks from "(.*)"$/m.exec(result.stdout)?.[2], result.stdout).toBe(DEMO_ANNOTATE),
  },
];

/** The README's progress line example as a pattern: its run id and numbers stand for any. */
function progressPattern(markdown: string): RegExp {
  const sample = /```\n(run \S+: running .*)\n```/.exec(markdown)?.[1];
  if (!sample) throw new Error(`${README} has no progress line example (a plain \`\`\` block with "run <id>: running …")`);
  const escaped = sample
    .replace(/^run \S+:/, "RUNID")
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\d+(?:\\\.\d+)?/g, "NUMBER");
  // A count not known yet is a dash: "–/s", "ETA –".
  return new RegExp(`^${escaped.replace("RUNID", "run \\S+:").replace(/NUMBER s\b/g, "(?:[\\d.]+ s|–)").replace(/NUMBER/g, "(?:[\\d.]+|–)")}$`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** curl as the examples use it, but failing (exit 22) on an HTTP error status instead of printing the refusal and exiting 0. */
const CURL_FAILS = 'curl() { command curl --fail-with-body --silent --show-error "$@"; }';

/** Runs one command under bash in the examples' folder; a long-running one is stopped after its first line of output. */
function runCommand(text: string, env: Record<string, string>, dir: string, longRunning: boolean, timeoutMs = 60_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", `${CURL_FAILS}\n${text}`], { cwd: dir, env, detached: true });
    let stdout = "";
    let stderr = "";
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(stop, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (longRunning && stdout.includes("\n")) stop();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: longRunning && stdout.includes("\n") ? 0 : code, stdout, stderr });
    });
  });
}

/** The environment after an `export …` line. */
async function exported(text: string, env: Record<string, string>, dir: string): Promise<Record<string, string>> {
  const result = await runCommand(`${text} && env -0`, env, dir, false);
  if (result.code !== 0) throw new Error(`\`${text}\` failed: ${result.stderr}`);
  return Object.fromEntries(
    result.stdout
      .split("\0")
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
}

test("every bash example of README.md runs and prints what the README says, against the started app", async ({ page }) => {
  test.setTimeout(300_000);
  const markdown = readFileSync(path.join(repoRoot, README), "utf8");
  const blocks = readmeCommands(markdown);
  const commands = blocks.flat();

  // Coverage first, before anything runs: every command has exactly one entry, and every entry a command.
  const uncovered = commands.filter((c) => EXAMPLES.filter((e) => e.match.test(c.text)).length !== 1);
  expect(uncovered.map((c) => `${README}:${c.line}: ${EXAMPLES.some((e) => e.match.test(c.text)) ? "more than one entry covers" : "no entry of the examples map covers"} \`${c.text}\``)).toEqual([]);
  const unused = EXAMPLES.filter((e) => !commands.some((c) => e.match.test(c.text)));
  expect(unused.map((e) => `the examples map's entry ${e.match} matches no command of ${README}`)).toEqual([]);

  const dir = mkdtempSync(path.join(tmpdir(), "stepwiser-readme-"));
  try {
    await signIn(page);
    await page.goto("/settings/tokens");
    await page.getByLabel("Name (what will use it)").fill("readme examples");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByLabel("API token readme examples").inputValue();
    const api = await newRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
    const getJson = async <T>(url: string): Promise<T> => (await (await api.get(url)).json()) as T;

    const baseEnv: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      STEPWISER_DATA_DIR: process.env.STEPWISER_E2E_DATA_DIR!,
      PIP_NO_INDEX: "1",
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    // The examples run from a folder of their own that reaches the checkout's paths as the README's commands name them.
    for (const entry of ["bin", "packages", "clients", "examples"]) symlinkSync(path.join(repoRoot, entry), path.join(dir, entry));
    const tiny = await runCommand('bin/stepwiser sim dataset --name "README examples" --problems 1 --solutions 1', baseEnv, dir, false);
    expect(tiny.code, tiny.stderr).toBe(0);
    const tinyDatasetId = json<{ datasetId: string }>(tiny.stdout).datasetId;
    writeFixtures(dir, tinyDatasetId);
    // The examples read the demo's annotate run and its queue; the one-solution dataset is what the annotate and judge examples run on.
    let demoAnnotateId = "";
    await expect
      .poll(
        async () => {
          type Page = { runs?: { id: string; name: string; status: string }[]; items?: { id: string; name: string; status: string }[] };
          const page = await getJson<Page>(`/api/v1/runs?kind=annotate&search=${encodeURIComponent(DEMO_ANNOTATE)}`);
          const run = (page.runs ?? page.items ?? []).find((r) => r.name === DEMO_ANNOTATE);
          demoAnnotateId = run?.id ?? "";
          return run?.status;
        },
        { timeout: 200_000, intervals: [2000] },
      )
      .toBe("completed");
    let demoQueueId = "";
    await expect
      .poll(
        async () => {
          const { queues } = await getJson<{ queues: { id: string; name: string }[] }>("/api/v1/annotation-queues");
          demoQueueId = queues.find((q) => q.name === DEMO_QUEUE)?.id ?? "";
          return demoQueueId;
        },
        { timeout: 60_000, intervals: [1000] },
      )
      .not.toBe("");
    // The export the file examples list and download: the demo labels as a verl training set.
    const exportResponse = await api.post("/api/v1/exports", { data: { kind: "training-set", runId: demoAnnotateId, options: { labelRule: { rule: "abs-q" }, format: "verl" } } });
    expect(exportResponse.status(), await exportResponse.text()).toBe(201);
    const exportRunId = ((await exportResponse.json()) as { id: string }).id;
    await expect.poll(async () => (await getJson<{ status: string }>(`/api/v1/runs/${exportRunId}`)).status, { timeout: 60_000, intervals: [500] }).toBe("completed");
    const exportFiles = (await getJson<{ files: { fileId: string; name: string; sizeBytes: number }[] }>(`/api/v1/exports/${exportRunId}/files`)).files;
    const exportFile = exportFiles.find((f) => f.name === "train.parquet")!;
    const offline = await api.post("/api/v1/runs", { data: { kind: "judge", offline: true, config: { datasetId: tinyDatasetId, judgeEndpoint: "sim-judge-strong", samples: 1 } } });
    expect(offline.status(), await offline.text()).toBe(201);
    const ctx: Context = {
      dir,
      token,
      demoAnnotateId,
      demoQueueId,
      tinyDatasetId,
      exportRunId,
      exportFile,
      offlineRunId: ((await offline.json()) as { id: string }).id,
      freePort: await freePort(),
      progressLine: progressPattern(markdown),
      getJson,
    };

    const started = Date.now();
    for (const block of blocks) {
      let env = { ...baseEnv };
      for (const command of block) {
        const example = EXAMPLES.find((e) => e.match.test(command.text))!;
        if (example.notRun) continue;
        const where = `${README}:${command.line}`;
        const text = substitute(command.text, ctx);
        const left = leftOver(text);
        expect(left, `${where}: the placeholder "${left}" in \`${command.text}\` is not in the examples map`).toBeUndefined();
        const missing = filesRead(text).filter((file) => !existsSync(path.join(dir, file.replace(/^~\//, ""))));
        expect(missing, `${where}: the files ${missing.join(", ")} of \`${command.text}\` are neither fixtures of the examples map nor files of the checkout`).toEqual([]);
        if (/^export \w+=/.test(text)) {
          env = await exported(text, env, dir);
          await example.check?.({ code: 0, stdout: "", stderr: "" }, ctx);
          continue;
        }
        const result = await runCommand(text, env, dir, example.longRunning ?? false);
        const output = `${where}: \`${text}\` exited ${result.code}\nstdout:\n${result.stdout.slice(0, 3000)}\nstderr:\n${result.stderr.slice(-3000)}`;
        expect(result.code, output).toBe(0);
        if (command.expected !== undefined) expect(result.stdout.trim(), `${where}: the README shows it printing ${command.expected}`).toBe(command.expected);
        try {
          await example.check?.(result, ctx);
        } catch (error) {
          throw new Error(`${output}\n\n${(error as Error).message}`);
        }
      }
    }
    console.log(`README examples: ${commands.filter((c) => !EXAMPLES.find((e) => e.match.test(c.text))!.notRun).length} commands in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    await api.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
