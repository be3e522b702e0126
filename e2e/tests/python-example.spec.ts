import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, request as newRequest, test } from "@playwright/test";
import config from "../playwright.config";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(repoRoot, "examples/python/judge_demo.py");
const packageDir = path.join(repoRoot, "clients/python");
const baseURL = config.use!.baseURL!;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with only the given environment (and PATH, HOME); resolves with its exit status and output. */
function run(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } });
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

const output = (result: Finished) => `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

test("the stepwiser package installs offline and passes its tests against the app, and the Python example waits for the demo labels and launches a judge run, with an API token made in the app", async ({ page }) => {
  test.setTimeout(300_000);
  const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (python.error || python.status !== 0) {
    throw new Error(`python3 is needed to run clients/python and examples/python (the scripting package and example this test runs), but "python3 --version" failed: ${python.error?.message ?? python.stderr}`);
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
  const env = { STEPWISER_URL: baseURL, STEPWISER_TOKEN: token };

  const missing = await run("python3", [script], { STEPWISER_URL: baseURL }, 30_000);
  expect(missing.code, output(missing)).toBe(2);
  expect(missing.stderr).toContain("STEPWISER_TOKEN is not set");

  // The example right after start-up: the demo's annotate run may still be working, and the example waits for it.
  const result = await run("python3", [script, "--samples", "1", "--timeout", "200"], env, 230_000);
  expect(result.code, output(result)).toBe(0);
  expect(result.stdout).toMatch(/^runs: \d+$/m);
  expect(result.stdout).toMatch(/^labels: [1-9]\d* chunks from annotate run \S+$/m);
  const launched = /^launched judge run (\S+) "sim-judge-strong, K=1 \(Python example\)" on Simulated world \(demo\) \(24 solutions\)$/m.exec(result.stdout);
  expect(launched, result.stdout).not.toBeNull();
  const runId = launched![1]!;
  expect(result.stdout).toMatch(new RegExp(`^judge run ${runId} completed: \\d+ requests, \\d+ tokens$`, "m"));
  expect(result.stdout).toMatch(/^predictions: 24 solutions, \d+ with a first error$/m);

  // The run the script launched is the app's: completed, with the script's configuration.
  const api = await newRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const launchedRun = (await (await api.get(`/api/v1/runs/${runId}`)).json()) as { status: string; kind: string; config: { judgeEndpoint: string; samples: number } };
  expect(launchedRun).toMatchObject({ status: "completed", kind: "judge", config: { judgeEndpoint: "sim-judge-strong", samples: 1 } });
  await api.dispose();

  // The package, installed offline into a folder of its own, and its tests run against that copy (not the checkout).
  const target = mkdtempSync(path.join(tmpdir(), "stepwiser-python-"));
  try {
    const install = await run("python3", ["-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "--target", target, packageDir], { PIP_DISABLE_PIP_VERSION_CHECK: "1" }, 120_000);
    expect(install.code, output(install)).toBe(0);
    expect(install.stdout).toContain("Successfully installed stepwiser-");
    const installed = { PYTHONPATH: target, STEPWISER_TEST_INSTALLED_AT: target, PYTHONDONTWRITEBYTECODE: "1" };
    const unit = await run("python3", [path.join(packageDir, "tests/test_client.py"), "-v"], installed, 60_000);
    expect(unit.code, output(unit)).toBe(0);
    expect(unit.stderr).toMatch(/^Ran \d+ tests in [\d.]+s\n\nOK$/m);
    // The build backend's own wheel (what the offline install above used), checked file by file.
    const build = await run("python3", [path.join(packageDir, "tests/test_build.py")], { PYTHONDONTWRITEBYTECODE: "1" }, 60_000);
    expect(build.code, output(build)).toBe(0);
    const live = await run("python3", [path.join(packageDir, "tests/test_live.py"), "-v"], { ...env, ...installed }, 200_000);
    expect(live.code, output(live)).toBe(0);
    // Every live test ran: none skipped (a missing setting or an unset install folder would skip them).
    expect(live.stderr, output(live)).toMatch(/^Ran 7 tests in [\d.]+s\n\nOK$/m);
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
});
