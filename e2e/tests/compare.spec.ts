import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

test("compares the demo's strong and weak judges: metrics with CIs, disagreements with a rationale diff, the three-way view; every view is a URL (human labels: annotation.spec)", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  await page.getByTestId("nav-compare").click();
  const datasetPicker = page.getByTestId("compare-dataset");
  const datasetId = (await datasetPicker.locator("option", { hasText: "Simulated world (demo)" }).getAttribute("value"))!;
  // Opened with nothing chosen, Compare shows the newest finished pair (first-start.spec checks that), which may
  // be the demo's benchmark pair while its judges still work: this test starts from the dataset alone.
  await page.goto(`/compare?dataset=${datasetId}`);
  await expect(datasetPicker).toHaveValue(datasetId);
  await expect(page).not.toHaveURL(/[?&]runs=/); // the reloads below keep the dataset and choose nothing else

  // The demo's judge runs may still be working: wait until both are listed as completed.
  const option = (judge: string) => page.getByTestId("compare-run-option").filter({ hasText: judge });
  await expect(async () => {
    await page.reload();
    await expect(option("sim-judge-strong")).toContainText("completed", { timeout: 2_000 });
    await expect(option("sim-judge-weak")).toContainText("completed", { timeout: 2_000 });
  }).toPass({ timeout: 150_000 });
  // The choice lives in the URL: each click lands once the address has changed.
  for (const control of [option("sim-judge-strong").getByTestId("compare-run-checkbox"), option("sim-judge-weak").getByTestId("compare-run-checkbox"), option("sim-judge-weak").getByTestId("compare-baseline-radio")]) {
    await control.click();
    await expect(control).toBeChecked();
  }
  const strongId = await option("sim-judge-strong").getAttribute("data-run-id");
  const weakId = await option("sim-judge-weak").getAttribute("data-run-id");

  // Metrics: each judge's F1 with its interval, the strong judge's delta against the weak baseline.
  const f1 = page.locator(`[data-testid="metric-cell"][data-run="${strongId}"][data-subset="sim"][data-metric="f1"]`);
  await expect(f1.getByTestId("metric-ci")).toHaveText(/\[\d/);
  const delta = page.locator(`[data-testid="delta-cell"][data-run="${strongId}"][data-subset="sim"][data-metric="f1"]`);
  await expect(delta.getByTestId("delta-ci")).toBeVisible();
  await expect(delta.getByTestId("delta-p")).toBeVisible();
  await expect(page.locator(`[data-testid="delta-cell"][data-run="${weakId}"]`)).toHaveCount(0);
  const strongF1 = Number(await f1.getAttribute("data-value"));
  // The leaderboard: both runs ranked by average F1 with the protocol they spoke, and apart below them the
  // published references (per subset and their four-subset average, each from its own table; not measured here).
  const leaderboard = page.getByTestId("leaderboard-row");
  await expect(leaderboard).toHaveCount(2);
  for (const row of await leaderboard.all()) await expect(row.getByTestId("leaderboard-protocol")).toHaveText("StepWiser chunk judge stepwiser-chunk@v1 stepwiser-judge@v2");
  const ranked = await leaderboard.evaluateAll((rows) => rows.map((row) => Number(row.getAttribute("data-value"))));
  expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
  await expect(page.locator(`[data-testid="run-protocol"][data-protocol="stepwiser-chunk@v1"]`).first()).toBeVisible();
  const reference = page.getByTestId("published-reference");
  await expect(reference.getByRole("heading", { name: "Published (reference) — not measured here" })).toBeVisible();
  await expect(reference.getByTestId("published-row")).toHaveCount(19);
  const relEffective = reference.locator('[data-testid="published-row"][data-model="StepWiser Rel-Effective (Qwen2.5-7B-chunk)"]');
  await expect(relEffective.getByTestId("published-average")).toHaveText("61.9 (64.1 with Maj@8)");
  await expect(relEffective.getByTestId("published-subset")).toHaveText(["72.4", "68.3", "54.4", "52.4"]);
  await expect(relEffective.getByTestId("published-source")).toHaveText("StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5");
  // The demo's one subset is not ProcessBench's: its average is a partial one, headed so, apart from the published averages.
  await expect(page.getByTestId("leaderboard-average-heading")).toHaveText("Partial average F1 (1 subset: sim; 0 of ProcessBench's 4) (95 % CI)");
  await expect(page.getByTestId("leaderboard-partial")).toHaveCount(2);
  await expect(page.getByTestId("metrics-average-label")).toHaveText("partial average (1 subset: sim; 0 of ProcessBench's 4)");
  await expect(reference.getByTestId("published-caveat")).toContainText("The published figures are F1 per subset where the source gives them and the source's average over ProcessBench's four subsets");
  await expect(reference.getByTestId("published-caveat")).toContainText("is not comparable with the published averages");
  await expect(reference.getByTestId("published-caveat")).toContainText("Sources: StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5; GenPRM paper (Zhao et al., arXiv 2504.00891), Table 1.");
  await page.screenshot({ path: screenshot("compare.png"), fullPage: true });

  // The URL carries the view: opened afresh it shows the same numbers.
  const shared = page.url();
  expect(shared).toContain(`baseline=${weakId}`);
  const fresh = await page.context().newPage();
  await fresh.goto(shared);
  await expect(fresh.locator(`[data-testid="metric-cell"][data-run="${strongId}"][data-subset="sim"][data-metric="f1"]`)).toHaveAttribute("data-value", String(strongF1));
  await fresh.close();

  // Disagreements: every listed solution has different predictions; one opens with both rationales and their diff.
  await page.getByTestId("compare-tab-disagreements").click();
  const rows = page.getByTestId("disagreement-row");
  await expect(page.getByTestId("disagreements-total")).toHaveText(/^\d+ of 24 solutions/);
  const total = Number((await page.getByTestId("disagreements-total").textContent())!.match(/^\d+/)![0]);
  await expect(rows).toHaveCount(total);
  if (total > 0) {
    for (const row of await rows.all()) expect(await row.getByTestId("disagreement-a").textContent()).not.toBe(await row.getByTestId("disagreement-b").textContent());
    await rows.first().getByTestId("disagreement-link").click();
    await expect(page).toHaveURL(/\/compare\/item\?/);
    await expect(page.getByTestId("item-prediction")).toHaveCount(2);
    await expect(page.getByTestId("item-judgement").first()).toBeVisible();
    await expect(page.getByTestId("rationale-diff").first()).toBeVisible();
    await page.goBack();
  }

  // Three-way: judge verdict vs Monte-Carlo label vs human label, with a matrix and kappa per pair.
  await page.getByTestId("compare-tab-three-way").click();
  await page.getByTestId("reading-judge-run").selectOption(strongId!);
  for (const pair of ["judge-mc", "judge-human", "mc-human"]) await expect(page.getByTestId(`matrix-${pair}`)).toBeVisible();
  await expect(page.getByTestId("kappa-judge-mc")).toHaveAttribute("data-value", /\d/);
  await expect(page.getByTestId("three-way-summary")).toBeVisible();
  await expect(page).toHaveURL(/tab=three-way/);

  // Scaling: F1 against the number of votes, from the stored samples alone.
  await page.getByTestId("compare-tab-scaling").click();
  await expect(page.getByTestId("scaling-chart-k")).toBeVisible();
  await expect(page.locator(`[data-testid="scaling-row"][data-run="${strongId}"]`).first()).toBeVisible();
});
