import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, request as newRequest, test } from "@playwright/test";
import config from "../playwright.config";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(repoRoot, "examples/python/judge_demo.py");
const baseURL = config.use!.baseURL!;

/** Runs the example with the given environment; resolves with its exit status and output. */
function runExample(env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [script, "--timeout", "120"], { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("the Python example lists runs, reads an annotate run's labels, and launches a judge run it waits for, with an API token made in the app", async ({ page }) => {
  test.setTimeout(240_000);
  const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (python.error || python.status !== 0) {
    throw new Error(`python3 is needed to run examples/python (the scripting example this test runs), but "python3 --version" failed: ${python.error?.message ?? python.stderr}`);
  }

  // The document is public: no sign-in.
  const anonymous = await newRequest.newContext({ baseURL });
  const document = await anonymous.get("/api/openapi.json");
  expect(document.status()).toBe(200);
  expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
  expect((await anonymous.get("/api/v1/runs")).status()).toBe(401);
  await anonymous.dispose();

  await signIn(page);
  await page.goto("/settings/tokens");
  await page.getByLabel("Name (what will use it)").fill("python example");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByLabel("API token python example").inputValue();
  expect(token).toMatch(/^sw_/);

  // The demo's annotate run works in the background after start-up; the example reads its labels.
  const api = await newRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  await expect
    .poll(async () => ((await (await api.get("/api/v1/runs?kind=annotate&status=completed")).json()) as { items: unknown[] }).items.length, { timeout: 120_000, intervals: [2000] })
    .toBeGreaterThan(0);

  const missing = await runExample({ STEPWISER_URL: baseURL }, 30_000);
  expect(missing.code, missing.stderr).toBe(2);
  expect(missing.stderr).toContain("STEPWISER_TOKEN is not set");

  const result = await runExample({ STEPWISER_URL: baseURL, STEPWISER_TOKEN: token }, 200_000);
  expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(/^runs: \d+$/m);
  expect(result.stdout).toMatch(/^labels: [1-9]\d* chunks from annotate run \S+$/m);
  const launched = /^launched judge run (\S+) "[^"\n]+, K=\d+ \(Python example\)" on Simulated world \(demo\) \(24 solutions\)$/m.exec(result.stdout);
  expect(launched, result.stdout).not.toBeNull();
  const runId = launched![1]!;
  expect(result.stdout).toMatch(new RegExp(`^judge run ${runId} completed: \\d+ requests, \\d+ tokens$`, "m"));
  expect(result.stdout).toMatch(/^predictions: 24 solutions, \d+ with a first error$/m);

  // The run the script launched is the app's: completed, by the token's owner, with the script's configuration.
  const run = (await (await api.get(`/api/v1/runs/${runId}`)).json()) as { status: string; kind: string; config: { judgeEndpoint: string; samples: number } };
  expect(run).toMatchObject({ status: "completed", kind: "judge", config: { judgeEndpoint: "sim-judge-strong", samples: 2 } });
  await api.dispose();
});
