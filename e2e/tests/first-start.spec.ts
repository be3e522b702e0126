import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

/** The demo's runs on the simulated world, as the launcher names them. */
const DEMO_RUN_NAMES = [
  "Demo: Monte-Carlo labels (sim-policy), M=8",
  "Demo benchmark: medium judge (sim-judge-medium), K=1",
  "Demo benchmark: correlated judge (sim-judge-correlated), K=1",
  "Demo: weak judge (sim-judge-weak), K=3",
  "Demo: strong judge (sim-judge-strong), K=3",
];

/**
 * A fresh start (the simulated-world demo) has something on every page: the
 * dataset and its named runs, a comparison opened without choosing anything,
 * and an annotation queue with the demo annotators' labels and their agreement.
 */
test("a first start shows content everywhere: the demo dataset and its named runs, a comparison, a queue with labels and agreement", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);

  // Datasets: the demo dataset with its 24 solutions, listed on its page.
  const datasetRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Simulated world (demo)" }) });
  await expect(datasetRow).toContainText("24");
  await datasetRow.getByRole("link", { name: "Simulated world (demo)" }).click();
  await expect(page).toHaveURL(/\/datasets\/[^/?]+$/);
  const datasetPath = new URL(page.url()).pathname;
  await expect(page.getByRole("row").filter({ hasText: "sim-" }).first()).toBeVisible();

  // Runs: the dataset's run history names the demo runs, tagged demo.
  await page.goto(`${datasetPath}/runs`);
  await expect(page.getByRole("heading", { name: "Run history" })).toBeVisible();
  const names = page.getByTestId("run-row").getByTestId("run-name");
  for (const name of DEMO_RUN_NAMES) {
    await expect(names.filter({ hasText: name })).toHaveCount(1);
    await expect(page.getByTestId("run-row").filter({ hasText: name })).toContainText("demo");
  }

  // The Runs page (top navigation): every demo run across datasets, named, with its dataset and the demo tag.
  await page.getByTestId("nav-runs").click();
  await expect(page).toHaveURL(/\/runs$/);
  const runsTable = page.getByTestId("runs-table");
  for (const name of DEMO_RUN_NAMES) {
    const row = runsTable.locator("tbody tr").filter({ has: page.getByRole("link", { name, exact: true }) });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("Simulated world (demo)");
    await expect(row.getByLabel("Tags")).toContainText("demo");
  }

  // Compare, opened with nothing chosen: once both judges have finished, the newest pair is chosen for the
  // visitor (the strong judge against the weak one as baseline) and its F1 is shown with an interval.
  const strong = page.getByTestId("compare-run-option").filter({ hasText: "Demo: strong judge" });
  const weak = page.getByTestId("compare-run-option").filter({ hasText: "Demo: weak judge" });
  await expect(async () => {
    await page.goto("/compare");
    await expect(strong.getByTestId("compare-run-checkbox")).toBeChecked({ timeout: 3_000 });
  }).toPass({ timeout: 180_000 });
  const strongId = await strong.getAttribute("data-run-id");
  await expect(page).toHaveURL(/[?&]dataset=/);
  await expect(page).toHaveURL(new RegExp(`[?&]runs=${strongId ?? ""}`));
  await expect(weak.getByTestId("compare-run-checkbox")).toBeChecked();
  await expect(weak.getByTestId("compare-baseline-radio")).toBeChecked();
  const f1 = page.locator(`[data-testid="metric-cell"][data-run="${strongId}"][data-subset="sim"][data-metric="f1"]`);
  await expect(f1).toHaveAttribute("data-value", /^(0|1|0\.\d+)$/);
  await expect(f1.getByTestId("metric-ci")).toHaveText(/\[\d/);
  await expect(page.locator(`[data-testid="delta-cell"][data-run="${strongId}"][data-metric="f1"]`).first()).toBeVisible();

  // Queues: the demo queue (made once the demo annotate run has finished) with two demo annotators' labels.
  const queueRow = page.getByTestId("queue-row").filter({ hasText: "Demo: least confident Monte-Carlo labels" });
  await expect(async () => {
    await page.goto("/annotation-queues");
    await expect(queueRow).toHaveCount(1, { timeout: 3_000 });
  }).toPass({ timeout: 120_000 });
  await expect(queueRow).toContainText("4 / 6 items");
  await queueRow.getByRole("link", { name: "Demo: least confident Monte-Carlo labels" }).click();
  await expect(page).toHaveURL(/\/annotation-queues\/(?!new)[^/?]+$/);
  await expect(page.getByTestId("queue-progress")).toContainText("4 of 6 items done · 8 submissions");
  await expect(page.getByTestId("annotator-progress")).toHaveCount(2);
  await expect(page.getByTestId("annotator-progress").filter({ hasText: "Demo annotator A" })).toBeVisible();
  // Agreement: Cohen's kappa for the pair and Fleiss' kappa, as numbers.
  await expect(page.getByTestId("cohen-kappa")).toHaveCount(1);
  await expect(page.getByTestId("cohen-kappa")).toHaveAttribute("data-kappa", /^-?\d/);
  await expect(page.getByTestId("cohen-kappa")).toHaveAttribute("data-annotators", /Demo annotator A\|Demo annotator B|Demo annotator B\|Demo annotator A/);
  await expect(page.getByTestId("fleiss-kappa")).toHaveAttribute("data-kappa", /^-?\d/);
});
