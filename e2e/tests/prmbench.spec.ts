import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { launchFromForm } from "./launch-run";
import { signIn } from "./sign-in";
import { mutate, query, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = path.join(repoRoot, "packages/core/test/fixtures/prmbench/prmbench-sample.jsonl");

interface RunRow {
  id: string;
  kind: string;
  createdAt: string;
  label: string;
}

/** A percentage with its 95 % interval, or the evaluator's undefined. */
const FIGURE = /^(\d{1,3}(\.\d)? % \[(\d+\.\d|undefined), (\d+\.\d|undefined)\]|undefined \(−1\))$/;

/**
 * PRMBench end to end in the browser: the released sample imported through the import panel,
 * a benchmark of it launched from the form against a simulated judge, its results (PRMScore, F1
 * and F1_neg with intervals, the items scored, invalid and missing, PRMBench's classes), then its
 * row on Compare's leaderboard: its PRMScore beside the ProcessBench F1 of the same judge (the
 * demo's ProcessBench benchmark of sim-judge-medium), never its own first-error F1, and the
 * published PRMBench PRMScores apart.
 */
test("a PRMBench import benchmarked against a simulated judge: PRMScore, F1 and F1_neg per class, then its leaderboard row beside the same judge's ProcessBench F1", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page);
  const request = page.request;

  await page.getByLabel("Import file").setInputFiles({ name: "prmbench-sample.jsonl", mimeType: "application/x-ndjson", buffer: readFileSync(fixture) });
  await page.getByLabel("Format").selectOption("prmbench");
  await page.getByLabel("Dataset name (optional)").fill("E2E PRMBench sample");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-status")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  // 28 records: 27 modified items (one repeated) and 3 all-correct items.
  await expect(page.getByTestId("import-summary")).toContainText("30 written");
  await page.getByRole("link", { name: "Open the dataset" }).click();
  await expect(page.getByRole("heading", { name: "E2E PRMBench sample" })).toBeVisible();
  const datasetId = new URL(page.url()).pathname.split("/").pop()!;

  // The comparison's second run, of another judge, through the API while the form's run is launched.
  const other = await mutate<{ runId: string }>(request, "run.launch", { kind: "benchmark", name: "PRMBench: correlated judge", config: { datasetId, judgeEndpoint: "sim-judge-correlated", samples: 1, bootstrap: { resamples: 200 } } });
  await launchFromForm(page, "benchmark", { judgeEndpoint: "sim-judge-medium", samples: "1", concurrency: "16" });
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  await waitForRun(request, runId, 40_000);
  await expect(page.getByRole("heading", { name: "Results", exact: true })).toBeVisible({ timeout: 15_000 });

  const scores = page.getByTestId("results-prmbench");
  for (const label of ["PRMScore", "F1", "F1_neg"]) await expect(scores.getByTestId(`fact-${label}`)).toHaveText(FIGURE);
  await expect(scores.getByTestId("fact-Items scored")).toHaveText(/^\d+$/);
  await expect(scores.getByTestId("fact-Protocol")).toHaveText("StepWiser chunk judge");

  // Every evaluated class, PRMBench's name and dimension beside the data's, its figures with intervals; the all-correct items apart.
  const classes = page.getByTestId("prmbench-classes");
  await expect(classes.getByRole("row")).toHaveCount(10);
  const redundancy = classes.getByRole("row").filter({ hasText: "redundency" });
  await expect(redundancy.getByRole("cell").nth(1)).toHaveText("Non-Redundancy (NR.)");
  await expect(redundancy.getByRole("cell").nth(2)).toHaveText("Simplicity");
  await expect(redundancy.getByRole("cell").nth(3)).toHaveText(/^[0-3]$/);
  for (const cell of [4, 5, 6]) await expect(redundancy.getByRole("cell").nth(cell)).toHaveText(FIGURE);
  await expect(classes.getByRole("row").filter({ hasText: "multi_solutions" }).getByRole("cell").nth(1)).toContainText("Multi-Solution Consistency (MS.)");
  await expect(classes).not.toContainText("correct_");
  const correct = page.getByTestId("prmbench-correct").getByRole("row").filter({ hasText: "All-correct items" });
  await expect(correct.getByRole("cell").nth(3)).toHaveText(/^[0-3]$/);
  // Every one of the 30 items (27 modified, 3 all-correct) is scored, invalid or missing.
  const [scored, invalid, missing, allCorrect] = await Promise.all([
    ...["Items scored", "Invalid", "Missing"].map(async (label) => Number(await scores.getByTestId(`fact-${label}`).textContent())),
    correct.getByRole("cell").nth(3).textContent().then(Number),
  ]);
  expect(scored! + invalid! + missing! + allCorrect!).toBe(30);

  // The first-error table is there, closed and named as what it is.
  const firstError = page.getByTestId("results-first-error");
  await expect(firstError.getByRole("heading", { name: "First-error reading (not PRMBench's metric)" })).toBeVisible();
  await expect(firstError.getByTestId("benchmark-subsets")).toBeHidden();
  await expect(page.getByTestId("results-benchmark")).toHaveCount(0);
  await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots", "prmbench-results.png"), fullPage: true });

  // Compare: ranked by PRMScore, each beside its judge's ProcessBench F1 (the demo's benchmark of sim-judge-medium).
  const demo: Record<"medium" | "correlated", string | undefined> = { medium: undefined, correlated: undefined };
  await expect(async () => {
    const { runs } = await query<{ runs: RunRow[] }>(request, "run.list", { kinds: ["benchmark"], pageSize: 200 });
    demo.medium = runs.find((r) => r.label.includes("Demo benchmark: medium judge"))?.id;
    demo.correlated = runs.find((r) => r.label.includes("Demo benchmark: correlated judge"))?.id;
    expect(demo.medium && demo.correlated).toBeDefined();
  }).toPass({ timeout: 10_000 });
  await Promise.all([waitForRun(request, other.runId, 30_000), waitForRun(request, demo.medium!, 30_000), waitForRun(request, demo.correlated!, 30_000)]);
  await page.goto(`/compare?dataset=${datasetId}&runs=${runId},${other.runId}&baseline=${other.runId}&tab=metrics`);
  const leaderboard = page.getByTestId("leaderboard");
  await expect(leaderboard).toHaveAttribute("data-benchmark", "prmbench", { timeout: 30_000 });
  await expect(leaderboard.getByRole("caption")).toHaveText("Leaderboard: PRMBench PRMScore");
  const row = leaderboard.locator(`[data-testid="leaderboard-row"][data-run="${runId}"]`);
  await expect(row.getByTestId("leaderboard-prmscore")).toHaveText(/^(\d+\.\d \[(\d+\.\d|undefined), \d+\.\d\]|undefined \(−1\))$/);
  const f1 = row.getByTestId("leaderboard-f1");
  await expect(f1).toContainText(/\d+\.\d \[\d+\.\d, \d+\.\d\]/);
  await expect(f1.getByTestId("leaderboard-same-judge")).toHaveAttribute("data-run", demo.medium!);
  await expect(f1.getByTestId("leaderboard-same-judge")).toContainText("on Simulated world (demo)");
  // The correlated judge's row likewise: its ProcessBench F1 is the demo's correlated benchmark, never its own first-error reading.
  const otherRow = leaderboard.locator(`[data-testid="leaderboard-row"][data-run="${other.runId}"]`);
  await expect(otherRow.getByTestId("leaderboard-f1").getByTestId("leaderboard-same-judge")).toHaveAttribute("data-run", demo.correlated!);
  const ranked = await leaderboard.getByTestId("leaderboard-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-value")).filter((v) => v !== null).map(Number));
  expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
  await expect(page.getByTestId("metrics-first-error-note")).toContainText("not PRMBench's metric");
  const published = page.getByTestId("published-prmbench");
  await expect(published.getByRole("heading", { name: "Published PRMBench PRMScores (reference) — not measured here" })).toBeVisible();
  await expect(published.locator('[data-testid="published-prmbench-row"][data-model="Qwen2.5-Math-PRM-7B"]').getByTestId("published-prmscore")).toHaveText("65.5");
  await expect(published.locator('[data-testid="published-prmbench-row"][data-model="Qwen2.5-Math-PRM-7B"]').getByTestId("published-prmbench-source")).toHaveText("PRMBench results table (Song et al., arXiv 2501.03124)");
  await expect(published.getByTestId("published-prmbench-caveat")).toContainText("form_latex_strs.ipynb");
});
