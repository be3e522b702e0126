import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { launchFromForm } from "./launch-run";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

async function openDemoDataset(page: Page) {
  await signIn(page);
  await page.getByRole("link", { name: "Simulated world (demo)" }).click();
  await expect(page.getByRole("heading", { name: "Simulated world (demo)" })).toBeVisible();
}

test("a researcher launches a small annotate run from the form and watches it reach 100%", async ({ page }) => {
  test.setTimeout(180_000);
  await openDemoDataset(page);
  // One solution at a time, so the run goes on long enough for its charts to have samples to draw.
  await launchFromForm(page, "annotate", { policyEndpoint: "sim-policy", rollouts: "4", limit: "6", concurrency: "1" });
  // The form's dataset is the one the launch came from.
  await page.getByText("Configuration snapshot").click();
  const snapshot = page.locator("pre").filter({ hasText: '"policyEndpoint": "sim-policy"' });
  await expect(snapshot).toContainText('"rollouts": 4');
  await expect(snapshot).toContainText('"concurrency": 1');
  await expect(page.getByTestId("run-percent")).toHaveText("100%", { timeout: 150_000 });
  await expect(page.getByText("completed", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("figure", { name: "Throughput over time" })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Token spend" }).locator(".recharts-area").first()).toBeVisible();
  // Its labels' confidence, one histogram per rule, read once more when the run ended.
  await expect(page.getByRole("figure", { name: /^Label confidence, rel-ratio/ })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("confidence-histogram")).toHaveCount(3);
  await page.screenshot({ path: screenshot("run.png"), fullPage: true });

  // The run is in the dataset's history.
  await page.getByRole("link", { name: "Runs of this dataset" }).click();
  await expect(page.getByRole("heading", { name: "Run history" })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "annotate" }).first()).toBeVisible();
});

test("a researcher cancels a long judge run from its page", async ({ page }) => {
  test.setTimeout(120_000);
  await openDemoDataset(page);
  await launchFromForm(page, "judge", { judgeEndpoint: "sim-judge-medium", samples: "32", temperature: "1", concurrency: "1" });
  await expect(page.getByText("running", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Cancel run" }).click();
  await expect(page.getByText("cancelled", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("button", { name: "Resume run" })).toBeVisible();
  const percent = await page.getByTestId("run-percent").textContent();
  expect(percent).not.toBe("100%");
});

test("the dataset overview plots chunk counts, lengths, Q-values, label balance and first errors", async ({ page }) => {
  test.setTimeout(150_000);
  await openDemoDataset(page);
  await page.getByRole("link", { name: "Overview", exact: true }).click();
  for (const heading of ["Chunks per solution", "Chunk length", "Q-value histogram", "Label balance", "First-error position"]) {
    await expect(page.getByRole("heading", { name: heading })).toBeVisible();
  }
  // The demo's annotate run finishes in the background; its bars appear once it has.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("region", { name: "Q-value histogram" }).locator(".recharts-bar-rectangle").first()).toBeVisible({ timeout: 3000 });
    await expect(page.getByRole("region", { name: "Label balance" }).locator(".recharts-bar-rectangle").first()).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 120_000, intervals: [2000] });
  await page.screenshot({ path: screenshot("dataset-plots.png"), fullPage: true });
});

test("solution lists filter and sort on the server, keep the view in the URL, and n/p walk it in the inspector", async ({ page }) => {
  test.setTimeout(150_000);
  await openDemoDataset(page);
  const filters = page.getByRole("search", { name: "Filter solutions" });
  // Wait for the demo's annotate run to appear as a choice.
  await expect(async () => {
    await page.reload();
    await expect(filters.getByLabel("Annotate run").locator("option")).not.toHaveCount(1, { timeout: 2000 });
  }).toPass({ timeout: 120_000, intervals: [2000] });
  // The oldest annotate run is the demo's, over every solution (newest first in the list).
  const annotateRun = await filters.getByLabel("Annotate run").locator("option").last().getAttribute("value");
  // Two changes in quick succession: both must end up in the view.
  await filters.getByLabel("Annotate run").selectOption(annotateRun!);
  await filters.getByLabel("Final answer").selectOption("false");
  await expect(page).toHaveURL(new RegExp(`annotateRunId=${annotateRun}`));
  await page.getByRole("button", { name: /Lowest Q/ }).click();
  await expect(page).toHaveURL(/correct=false/);
  await expect(page).toHaveURL(/sort=qMin/);
  // The shared link restores the same view; the rows are read from that fresh load, so no answer of the view
  // before the last change can still be on screen when they are read.
  const shared = page.url();
  await page.goto(shared);
  await expect(filters.getByLabel("Final answer")).toHaveValue("false");
  await expect(page.getByRole("button", { name: /Lowest Q/ })).toBeVisible();
  const matching = Number((await page.getByText(/ matching/).textContent())!.replace(/[^0-9]/g, ""));
  expect(matching).toBeGreaterThan(1);
  const rows = page.getByRole("table").getByRole("row");
  const firstId = (await rows.nth(1).getByRole("link").textContent())!;
  const secondId = (await rows.nth(2).getByRole("link").textContent())!;
  // Every listed answer is wrong, and lowest Q-values ascend.
  await expect(rows.nth(2)).toBeVisible();
  const qs = (await rows.locator("td:nth-child(7)").allTextContents()).map(Number);
  expect(qs).toEqual([...qs].sort((a, b) => a - b));
  await expect(rows.locator("td:nth-child(4)").filter({ hasText: "correct" })).toHaveCount(0);

  await rows.nth(1).getByRole("link").click();
  await expect(page.getByRole("heading", { name: firstId })).toBeVisible();
  const around = page.getByRole("navigation", { name: "Solutions in this list" });
  await expect(around.getByRole("link", { name: `${secondId} ›` })).toBeVisible();
  await page.keyboard.press("n");
  await expect(page.getByRole("heading", { name: secondId })).toBeVisible();
  await expect(page).toHaveURL(/sort=qMin/);
  await expect(around.getByRole("link", { name: `‹ ${firstId}` })).toBeVisible();
  await page.keyboard.press("p");
  await expect(page.getByRole("heading", { name: firstId })).toBeVisible();
});

test("the endpoints page lists the live worker and each replica's slots held by workers", async ({ page }) => {
  await signIn(page);
  await page.goto("/endpoints");
  const workers = page.getByRole("region", { name: "Workers" });
  await expect(workers.getByText(/^1 live/)).toBeVisible({ timeout: 20_000 });
  await expect(workers.getByRole("row")).toHaveCount(2);
  const metrics = page.getByRole("region", { name: /^Live metrics of / });
  await expect(metrics.getByRole("columnheader", { name: "Worker slots" })).toBeVisible();
  await expect(metrics.getByRole("row").nth(1)).toContainText(/\d+ \/ \d+ · \d+ workers?/);
});
