import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { launchFromForm } from "./launch-run";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../playwright.config";
import { query, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);
const gsm8k = path.join(repoRoot, "packages/db/seed/processbench/gsm8k.json");

interface RunRow {
  id: string;
  kind: string;
  createdAt: string;
  label: string;
}

/**
 * Signs in as the admin. Right after start-up the demo's three runs keep the
 * server's two cores busy, so the landing page may take longer than the usual
 * five seconds to arrive; it must still arrive.
 */
async function signInBusy(page: Page) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/datasets/, { timeout: 30_000 });
}

/** Signs in, opens the demo dataset and returns its id. */
async function openDemoDataset(page: Page): Promise<string> {
  await signInBusy(page);
  await page.getByRole("link", { name: "Simulated world (demo)", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Simulated world (demo)" })).toBeVisible();
  return new URL(page.url()).pathname.split("/").pop()!;
}

/** The demo's own run of a kind (the oldest; other specs may launch more), once it has completed. */
async function demoRun(page: Page, datasetId: string, kind: string, labelPart = ""): Promise<string> {
  let runId: string | undefined;
  await expect(async () => {
    const { runs } = await query<{ runs: RunRow[] }>(page.request, "run.list", { datasetId, pageSize: 200 });
    runId = runs.filter((r) => r.kind === kind && r.label.includes(labelPart)).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]?.id;
    expect(runId).toBeDefined();
  }).toPass({ timeout: 30_000 });
  await waitForRun(page.request, runId!, 150_000);
  return runId!;
}

/** Launches a run from the demo dataset's form and waits on its page until it has completed and shows its results. */
async function launchAndFinish(page: Page, kind: string, fields: Record<string, string>): Promise<string> {
  await launchFromForm(page, kind, fields);
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  await waitForRun(page.request, runId, 150_000);
  await expect(page.getByRole("heading", { name: "Results", exact: true })).toBeVisible({ timeout: 15_000 });
  return runId;
}

/** The raw summary stays available, closed: its JSON is hidden until the disclosure is opened. */
async function expectRawJsonClosed(page: Page) {
  const raw = page.getByTestId("raw-results");
  await expect(page.getByText("Raw results (JSON)")).toBeVisible();
  await expect(raw).toBeHidden();
  await page.getByText("Raw results (JSON)").click();
  await expect(raw).toBeVisible();
  await expect(raw).toContainText("{");
  await page.getByText("Raw results (JSON)").click();
  await expect(raw).toBeHidden();
}

const fact = (scope: Locator | Page, label: string) => scope.getByTestId(`fact-${label}`);
const PERCENT = /^\d{1,3}(\.\d{1,2})? %$|^0\.\d+ %$/;

test("an annotate run's results: labels per rule, the Q-value histogram, rollouts and tokens against the plan", async ({ page }) => {
  test.setTimeout(200_000);
  const datasetId = await openDemoDataset(page);
  const runId = await demoRun(page, datasetId, "annotate");
  await page.goto(`/runs/${runId}`);
  const balance = page.getByRole("region", { name: "Label balance per rule" });
  // The demo's run labels under the three default rules; counts with separators.
  await expect(balance.getByRole("table").getByRole("row")).toHaveCount(4);
  await expect(balance.getByRole("row").nth(1).getByRole("cell").nth(3)).toHaveText(PERCENT);
  await expect(balance.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Q-value histogram" }).locator(".recharts-bar-rectangle").first()).toBeVisible();
  // A fixed run with M = 8 draws exactly what the plan says: used and estimated rollouts and requests agree.
  const usage = page.getByRole("region", { name: "Rollouts and tokens against the plan" });
  for (const measure of ["Rollouts", "Requests"]) {
    const cells = usage.getByRole("row").filter({ hasText: measure }).getByRole("cell");
    await expect(cells.nth(1)).toHaveText(/^[\d,]+$/);
    expect(await cells.nth(1).textContent()).toBe(await cells.nth(2).textContent());
    await expect(cells.nth(3)).toHaveText("0.0 %");
  }
  await expect(usage.getByRole("row").filter({ hasText: "Generated tokens" }).getByRole("cell").nth(3)).toHaveText(/^(0\.0|[+−]\d+\.\d) %$/);
  // Label confidence stays the page's own panel.
  await expect(page.getByRole("figure", { name: /^Label confidence, / }).first()).toBeVisible({ timeout: 15_000 });
  await expectRawJsonClosed(page);
  await page.getByRole("region", { name: "Label balance per rule" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshot("results-annotate.png"), fullPage: true });
});

test("a judge run's results: verdicts, agreement with each label rule and the source's first errors, links to disagreeing chunks", async ({ page }) => {
  test.setTimeout(200_000);
  const datasetId = await openDemoDataset(page);
  const annotateRunId = await demoRun(page, datasetId, "annotate");
  const judgeRunId = await demoRun(page, datasetId, "judge", "sim-judge-weak");
  await page.goto(`/runs/${judgeRunId}`);

  const verdicts = page.getByRole("region", { name: "Verdicts", exact: true });
  await expect(verdicts.getByRole("row")).toHaveCount(4);
  await expect(page.getByTestId("unparseable-rate")).toHaveText(PERCENT);
  await expect(verdicts.locator(".recharts-bar-rectangle").first()).toBeVisible();

  // One card per rule of the demo's annotate run (its three default rules), and one for the source's first errors.
  const cards = page.getByTestId("results-agreement");
  const ofDemoRun = cards.filter({ has: page.locator(`a[href="/runs/${annotateRunId}"]`) });
  await expect(ofDemoRun).toHaveCount(3);
  await expect(cards.filter({ hasText: "Source first errors" })).toHaveCount(1);
  for (const card of await cards.all()) {
    await expect(fact(card, "F1 (Negative)")).toHaveText(PERCENT);
    await expect(fact(card, "Cohen's κ")).toHaveText(/^−?\d\.\d\d$/);
    await expect(card.getByTestId("confusion-matrix").getByRole("row")).toHaveCount(3);
  }
  // The first rule's card says what the compare page's three-way view computes for the same judge and annotate run.
  const threeWay = await query<{ judgeVsMc: { kappa: number; matrix: { counts: Record<"Positive" | "Negative", Record<"Positive" | "Negative" | "unparseable", number>> } } }>(page.request, "compare.threeWay", { judgeRunId, annotateRunId, limit: 1 });
  const first = ofDemoRun.first();
  const kappa = threeWay.judgeVsMc.kappa;
  await expect(fact(first, "Cohen's κ")).toHaveText(`${kappa < 0 && Math.abs(kappa).toFixed(2) !== "0.00" ? "−" : ""}${Math.abs(kappa).toFixed(2)}`);
  const matrix = first.getByTestId("confusion-matrix");
  for (const [i, reference] of (["Positive", "Negative"] as const).entries()) {
    const cells = matrix.getByRole("row").nth(i + 1).getByRole("cell");
    await expect(cells.nth(0)).toHaveText(threeWay.judgeVsMc.matrix.counts[reference].Positive.toLocaleString("en-US"));
    await expect(cells.nth(1)).toHaveText(threeWay.judgeVsMc.matrix.counts[reference].Negative.toLocaleString("en-US"));
  }
  await page.screenshot({ path: screenshot("results-judge.png"), fullPage: true });

  // A disagreeing chunk opens in the inspector at that chunk.
  const source = cards.filter({ hasText: "Source first errors" });
  await source.getByText(/disagreeing chunk/).click();
  const link = source.getByTestId("disagreement-link").first();
  const href = (await link.getAttribute("href"))!;
  expect(href).toMatch(/^\/solutions\/[^/#]+#chunk-\d+$/);
  const index = Number(href.split("#chunk-")[1]);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/solutions/[^/#]+#chunk-${index}$`));
  await expect(page.locator(`#chunk-${index}`)).toBeVisible();
});

test("a benchmark run's results on a small ProcessBench import: per-subset F1 and accuracies with intervals, and Compare with the run chosen", async ({ page }) => {
  test.setTimeout(200_000);
  await signInBusy(page);
  // 8 solutions with an error and 6 without, from the seed's ProcessBench gsm8k file, as a dataset of their own.
  const records = JSON.parse(readFileSync(gsm8k, "utf8")) as { label: number }[];
  const sample = [...records.filter((r) => r.label >= 0).slice(0, 8), ...records.filter((r) => r.label === -1).slice(0, 6)];
  await page.getByLabel("Import file").setInputFiles({ name: "results-benchmark.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(sample)) });
  await page.getByLabel("Dataset name (optional)").fill("Benchmark sample for results");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-status")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await page.getByRole("link", { name: "Open the dataset" }).click();
  await expect(page.getByRole("heading", { name: "Benchmark sample for results" })).toBeVisible();

  const runId = await launchAndFinish(page, "benchmark", { judgeEndpoint: "sim-judge-strong", samples: "1", concurrency: "4" });
  const scores = page.getByRole("region", { name: "ProcessBench scores" });
  const row = page.getByTestId("benchmark-subsets").getByRole("row").filter({ hasText: "gsm8k" });
  await expect(row.getByRole("cell").nth(1)).toHaveText("14");
  await expect(row.getByRole("cell").nth(2)).toHaveText("8");
  await expect(row.getByRole("cell").nth(3)).toHaveText("6");
  // F1 and the accuracies with their bootstrap intervals over the subset's solutions, the accuracies with their counts.
  await expect(row.getByRole("cell").nth(4)).toHaveText(/^[\d.]+ % \[\d+\.\d, \d+\.\d\]$/);
  await expect(row.getByRole("cell").nth(5)).toHaveText(/^[\d.]+ % \[\d+\.\d, \d+\.\d\] \(\d\/8\)$/);
  await expect(row.getByRole("cell").nth(6)).toHaveText(/^[\d.]+ % \[\d+\.\d, \d+\.\d\] \(\d\/6\)$/);
  // One subset of four: a partial average, named so, with its interval.
  await expect(fact(scores, "Partial average F1")).toHaveText(/^[\d.]+ % \[\d+\.\d, \d+\.\d\]$/);
  await expect(scores.getByText(/^partial average \(1 of 4 subsets: gsm8k\), unweighted/)).toBeVisible();
  await expect(fact(scores, "Average F1")).toHaveCount(0);
  // The protocol the judge spoke, with its id@vN and the judge model beside it.
  await expect(fact(scores, "Protocol")).toHaveText("StepWiser chunk judge");
  await expect(scores.getByText("stepwiser-chunk@v1 · sim-judge-strong")).toBeVisible();
  await expectRawJsonClosed(page);
  await page.screenshot({ path: screenshot("results-benchmark.png"), fullPage: true });

  await scores.getByRole("link", { name: "Compare with other runs →" }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?.*runs=${runId}`));
  await expect(page.locator(`[data-testid="compare-run-option"][data-run-id="${runId}"]`).getByTestId("compare-run-checkbox")).toBeChecked({ timeout: 15_000 });
});

test("a generate run's results (accuracy, prompt filter, solution length, chunks per solution), then best of N on its solutions against majority vote", async ({ page }) => {
  test.setTimeout(240_000);
  await openDemoDataset(page);
  // A name of its own, so the demo dataset stays the only one called "Simulated world (demo)".
  await launchAndFinish(page, "generate", { policyEndpoint: "sim-policy", samplesPerProblem: "4", limit: "3", concurrency: "4", outputDatasetName: "Generated for results" });
  const accuracy = page.getByRole("region", { name: "Accuracy", exact: true });
  await expect(fact(accuracy, "Accuracy (pass@1)")).toHaveText(PERCENT);
  await expect(fact(accuracy, "Solutions")).toHaveText("12");
  const filter = page.getByRole("region", { name: "Prompt filter" });
  const split = await Promise.all(["Mixed (kept)", "All correct", "All wrong"].map(async (label) => Number((await fact(filter, label).textContent())!.split(" ")[0])));
  expect(split.reduce((a, b) => a + b, 0)).toBe(3);
  const shape = page.getByRole("region", { name: "Solutions", exact: true });
  await expect(fact(shape, "Chunks per solution")).toHaveText(/^\d+(\.\d+)?$/);
  await expect(fact(shape, "Solution length")).toHaveText(/^[\d,.]+ characters$/);
  await expect(page.getByRole("region", { name: "Chunks per solution" }).locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.screenshot({ path: screenshot("results-generate.png"), fullPage: true });

  // Best of N picks among the four solutions per problem the run just wrote.
  await accuracy.getByRole("link", { name: /Open the solutions: Generated for results/ }).click();
  await expect(page.getByRole("heading", { name: "Generated for results" })).toBeVisible();
  await launchAndFinish(page, "best_of_n", { judgeEndpoint: "sim-judge-strong", samples: "1", concurrency: "4" });
  const best = page.getByRole("region", { name: "Best of N", exact: true });
  await expect(best).toContainText(/over [1-3] problems/);
  await expect(best.getByRole("row")).toHaveCount(7);
  await expect(best.getByRole("row").filter({ hasText: "Majority vote (baseline)" }).getByRole("cell").nth(2)).toHaveText("—");
  await expect(best.getByRole("row").filter({ hasText: "Oracle (upper bound)" }).getByRole("cell").nth(2)).toHaveText(/^(\+|−)?\d+\.\d pp$/);
  await expect(best.locator(".recharts-bar-rectangle")).toHaveCount(6);
  await page.screenshot({ path: screenshot("results-best-of-n.png"), fullPage: true });
});

test("a chunk-reset run's results: accuracy against plain sampling, tokens accepted and rejected", async ({ page }) => {
  test.setTimeout(200_000);
  await openDemoDataset(page);
  await launchAndFinish(page, "chunk_reset", { policyEndpoint: "sim-policy", judgeEndpoint: "sim-judge-strong", limit: "3", concurrency: "3" });
  const reset = page.getByRole("region", { name: "Chunk reset against plain sampling" });
  await expect(fact(reset, "Accuracy with chunk reset")).toHaveText(PERCENT);
  await expect(fact(reset, "Accuracy of plain sampling")).toHaveText(PERCENT);
  await expect(fact(reset, "Accepted tokens")).toHaveText(/^[\d,]+$/);
  await expect(fact(reset, "Rejected tokens")).toHaveText(/^[\d,]+$/);
  await expect(fact(reset, "Problems")).toHaveText("3");
  await expect(reset.locator(".recharts-bar-rectangle")).toHaveCount(2);
  await page.screenshot({ path: screenshot("results-chunk-reset.png"), fullPage: true });
});
