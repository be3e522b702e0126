import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import config from "../playwright.config";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const baseURL = config.use!.baseURL!;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built command line (bin/stepwiser) as a script on another machine
 * would: the studio's address and a token, and no database it could reach
 * (DATABASE_URL points nowhere, the data directory is empty).
 */
function stepwiser(args: string[], env: Record<string, string>, cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin/stepwiser"), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const shown = (result: Result) => `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

test("the command line scripts the running studio over its REST API with a token and no database: list, endpoints, import, launch and follow, predictions, exports downloaded, refusals", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  await page.goto("/settings/tokens");
  await page.getByLabel("Name (what will use it)").fill("command line");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByLabel("API token command line").inputValue();
  expect(token).toMatch(/^sw_/);

  const work = mkdtempSync(path.join(tmpdir(), "stepwiser-cli-remote-"));
  const remote = {
    STEPWISER_URL: baseURL,
    STEPWISER_TOKEN: token,
    DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
    STEPWISER_DATA_DIR: mkdtempSync(path.join(tmpdir(), "stepwiser-cli-remote-data-")),
  };
  const cli = (args: string[], env: Record<string, string> = remote) => stepwiser(args, env, work);
  const json = <T>(result: Result): T => {
    expect(result.code, shown(result)).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  // Refusals first: a command that needs the database, and a token the studio does not know (never printed).
  const local = await cli(["plan", "annotate", "--config", "annotate.json", "--tokens-per-second", "1000"]);
  expect(local.code, shown(local)).toBe(2);
  expect(local.stderr).toContain('"plan annotate" needs database access; remote mode (STEPWISER_URL) supports: run list,');
  const badToken = "sw_this_token_was_never_issued";
  const refused = await cli(["run", "list"], { ...remote, STEPWISER_TOKEN: badToken });
  expect(refused.code, shown(refused)).toBe(1);
  expect(refused.stderr).toMatch(/^stepwiser: GET \/api\/v1\/runs answered 401 UNAUTHORIZED: \S/);
  expect(refused.stderr).not.toContain(badToken);

  const endpoints = json<{ name: string; role: string }[]>(await cli(["endpoint", "list"]));
  expect(endpoints).toEqual(expect.arrayContaining([expect.objectContaining({ name: "sim-judge-strong", role: "judge" })]));
  expect(JSON.stringify(endpoints)).not.toMatch(/apiKey"\s*:\s*"/);

  // Import: two records cut from a released ProcessBench file, uploaded and imported by the studio's worker (the
  // third and fourth: the README examples' test imports the first two).
  const records = (JSON.parse(readFileSync(path.join(repoRoot, "packages/db/seed/processbench/gsm8k.json"), "utf8")) as unknown[]).slice(2, 4);
  writeFileSync(path.join(work, "gsm8k-two.json"), JSON.stringify(records));
  const imported = json<{ runs: { runId: string; status: string; datasetId: string; written: number }[]; solutions: number }>(
    await cli(["import", "processbench", "gsm8k-two.json", "--name", "Two GSM8K solutions (command line)"]),
  );
  expect(imported.runs).toEqual([expect.objectContaining({ status: "completed", written: 2 })]);
  expect(imported.solutions).toBe(2);

  // Launch a small judge run on the two imported solutions (not the demo's: other specs count the demo's judges) and
  // follow it to its end; its progress line is on stderr.
  writeFileSync(
    path.join(work, "judge.json"),
    JSON.stringify({ datasetId: imported.runs[0]!.datasetId, judgeEndpoint: "sim-judge-strong", segmentationMethod: "processbench-paragraphs", samples: 1, temperature: 1 }),
  );
  const launched = await cli(["run", "launch", "judge", "--config", "judge.json", "--name", "judge from the command line", "--tag", "cli-remote"]);
  const judge = json<{ runId: string; kind: string; status: string; unitsDone: number }>(launched);
  expect(judge).toMatchObject({ kind: "judge", status: "completed" });
  expect(launched.stderr).toMatch(new RegExp(`^queued judge run ${judge.runId} "judge from the command line"$`, "m"));
  expect(launched.stderr).toMatch(new RegExp(`^run ${judge.runId}: completed \\d+/\\d+ units · .* · 0 failed · \\d+ requests · \\d+ tokens generated$`, "m"));

  expect(json<{ runId: string; status: string }>(await cli(["run", "status", judge.runId]))).toMatchObject({ runId: judge.runId, status: "completed" });
  const predictions = await cli(["run", "predictions", judge.runId]);
  expect(predictions.code, shown(predictions)).toBe(0);
  const lines = predictions.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; prediction: number | null });
  // One prediction per imported solution, by its ProcessBench id.
  expect(lines.map((line) => line.id).sort()).toEqual(["gsm8k-2", "gsm8k-3"]);
  for (const line of lines) expect(Number.isInteger(line.prediction), JSON.stringify(line)).toBe(true);

  // run list: --kind, --status and --limit reach the studio (the newest completed judge run is the one just launched).
  const newest = json<{ runs: { id: string; kind: string; status: string }[]; nextOffset: number | null }>(await cli(["run", "list", "--kind", "judge", "--status", "completed", "--limit", "1"]));
  expect(newest.runs).toEqual([expect.objectContaining({ id: judge.runId, kind: "judge", status: "completed" })]);
  expect(newest.nextOffset).toBe(1);
  const imports = json<{ runs: { id: string; kind: string }[] }>(await cli(["run", "list", "--kind", "import", "--limit", "200"]));
  expect(imports.runs.map((run) => run.id)).toContain(imported.runs[0]!.runId);
  expect(new Set(imports.runs.map((run) => run.kind))).toEqual(new Set(["import"]));

  // The demo's annotate run works in the background after start-up: wait for it (through the command line), then export it.
  let annotateId = "";
  await expect(async () => {
    const annotate = json<{ runs: { id: string; name: string; status: string }[] }>(await cli(["run", "list", "--kind", "annotate", "--limit", "200"]));
    const run = annotate.runs.find((r) => r.name === "Demo: Monte-Carlo labels (sim-policy), M=8");
    expect(run?.status).toMatch(/^completed/);
    annotateId = run!.id;
  }).toPass({ timeout: 200_000, intervals: [2_000] });

  const labels = json<{ runId: string; status: string; files: { fileName: string; path: string; sizeBytes: number; sha256: string }[] }>(
    await cli(["export", "labels", "--run", annotateId, "--out", "labels.jsonl"]),
  );
  expect(labels.status).toBe("completed");
  const labelsFile = path.join(work, "labels.jsonl");
  expect(labels.files).toEqual([expect.objectContaining({ path: labelsFile, sizeBytes: statSync(labelsFile).size, sha256: sha256(labelsFile) })]);
  const labelLines = readFileSync(labelsFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { run_id: string; labels: unknown[] });
  expect(labelLines.length).toBeGreaterThan(10);
  expect(labelLines.every((line) => line.run_id === annotateId && line.labels.length > 0)).toBe(true);

  const trainingSet = json<{ status: string; files: { fileName: string; path: string; sizeBytes: number; sha256: string }[] }>(
    await cli(["export", "training-set", "--run", annotateId, "--rule", "abs-q", "--format", "trl", "--out", "training-set"]),
  );
  expect(trainingSet.status).toBe("completed");
  const written = readdirSync(path.join(work, "training-set")).sort();
  expect(written).toEqual(trainingSet.files.map((file) => file.fileName).sort());
  expect(written).toEqual(expect.arrayContaining(["README.md", "manifest.json"]));
  for (const file of trainingSet.files) {
    expect(existsSync(file.path), file.path).toBe(true);
    expect(sha256(file.path), file.fileName).toBe(file.sha256);
  }
});
