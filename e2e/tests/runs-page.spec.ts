import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { openAdvanced } from "./launch-run";
import { signIn } from "./sign-in";
import { mutate, query, upload } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

interface ListedRun {
  id: string;
  name: string;
  kind: string;
  status: string;
}

/** The demo dataset and its two judge runs (strong and weak), once both have completed. */
async function demoJudges(page: Page): Promise<{ datasetId: string; strong: ListedRun; weak: ListedRun }> {
  const datasets = await query<Array<{ id: string; name: string }>>(page.request, "dataset.list", {});
  const datasetId = datasets.find((d) => d.name === "Simulated world (demo)")!.id;
  let judges: ListedRun[] = [];
  await expect(async () => {
    judges = (await query<{ runs: ListedRun[] }>(page.request, "run.list", { datasetId, kinds: ["judge"], statuses: ["completed"], sort: "createdAt", order: "asc" })).runs;
    expect(judges.filter((run) => /sim-judge-(strong|weak)/.test(run.name)).length).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 150_000, intervals: [2000] });
  return { datasetId, strong: judges.find((run) => run.name.includes("sim-judge-strong"))!, weak: judges.find((run) => run.name.includes("sim-judge-weak"))! };
}

const runsTable = (page: Page) => page.getByTestId("runs-table");
const rowOf = (page: Page, runId: string) => runsTable(page).locator(`tr[data-run-id="${runId}"]`);

test("a run's name, tags and notes are edited on its page and show in the Compare picker and the dataset's run history", async ({ page }) => {
  test.setTimeout(200_000);
  await signIn(page);
  const { datasetId, strong } = await demoJudges(page);
  const original = await query<{ name: string; tags: string[]; notes: string }>(page.request, "run.get", { id: strong.id });
  await page.goto(`/runs/${strong.id}`);
  await expect(page.getByTestId("run-name")).toHaveText(strong.name);
  await expect(page.getByText(strong.id, { exact: true })).toBeVisible();

  await page.getByTestId("edit-run-description").click();
  const form = page.getByRole("form", { name: "Edit name, tags and notes" });
  await form.getByLabel("Name", { exact: true }).fill("Strong judge baseline (sim-judge-strong)");
  await form.getByLabel("Tags", { exact: true }).fill("baseline, e2e-picker");
  await form.getByLabel("Notes", { exact: true }).fill("Judged with **three votes**; <img src=x onerror=alert(1)> stays text.");
  await form.getByRole("button", { name: "Preview" }).click();
  await expect(form.getByTestId("notes-preview").locator("strong")).toHaveText("three votes");
  await form.getByRole("button", { name: "Save" }).click();

  await expect(page.getByTestId("run-name")).toHaveText("Strong judge baseline (sim-judge-strong)");
  await expect(page.getByTestId("run-tags")).toContainText("e2e-picker");
  await expect(page.getByTestId("run-notes").locator("strong")).toHaveText("three votes");
  await expect(page.getByTestId("run-notes").locator("img")).toHaveCount(0);
  await expect(page.getByTestId("run-notes")).toContainText("<img src=x onerror=alert(1)>");

  // Compare's run picker names it.
  await page.goto(`/compare?dataset=${datasetId}`);
  await expect(page.locator(`[data-testid="compare-run-option"][data-run-id="${strong.id}"]`)).toContainText("Strong judge baseline (sim-judge-strong)");
  // So does the dataset's run history, with its tags.
  await page.goto(`/datasets/${datasetId}/runs`);
  const historyRow = page.getByTestId("dataset-runs").getByRole("row").filter({ hasText: "Strong judge baseline (sim-judge-strong)" });
  await expect(historyRow).toContainText("e2e-picker");
  await historyRow.getByRole("link", { name: "Strong judge baseline (sim-judge-strong)" }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${strong.id}$`));
  // The demo run goes back to what it was, for the specs after this one.
  await mutate(page.request, "run.update", { id: strong.id, name: original.name, tags: original.tags, notes: original.notes });
});

test("the Runs page filters by kind, status and tag, and the view survives a reload", async ({ page }) => {
  test.setTimeout(200_000);
  await signIn(page);
  const { weak } = await demoJudges(page);
  await mutate(page.request, "run.update", { id: weak.id, tags: ["e2e-filter"] });

  await page.getByTestId("nav-runs").click();
  await expect(page.getByRole("heading", { name: "Runs", exact: true })).toBeVisible();
  const filters = page.getByRole("region", { name: "Filter runs" });
  await filters.getByRole("checkbox", { name: "judge", exact: true }).check();
  await expect(page).toHaveURL(/[?&]kind=judge/);
  await filters.getByRole("checkbox", { name: "completed", exact: true }).check();
  await expect(page).toHaveURL(/[?&]status=completed/);
  await expect(filters.getByLabel("Tag")).toContainText("e2e-filter");
  await filters.getByLabel("Tag").selectOption("e2e-filter");
  await expect(page).toHaveURL(/[?&]tag=e2e-filter/);
  await expect(runsTable(page).locator("tbody tr")).toHaveCount(1);
  await expect(rowOf(page, weak.id)).toContainText("judge");
  await expect(page.getByTestId("runs-count")).toHaveText("1 run matching");

  await page.reload();
  await expect(filters.getByRole("checkbox", { name: "judge", exact: true })).toBeChecked();
  await expect(filters.getByRole("checkbox", { name: "completed", exact: true })).toBeChecked();
  await expect(filters.getByRole("checkbox", { name: "annotate", exact: true })).not.toBeChecked();
  await expect(filters.getByLabel("Tag")).toHaveValue("e2e-filter");
  await expect(runsTable(page).locator("tbody tr")).toHaveCount(1);
  await expect(rowOf(page, weak.id)).toBeVisible();

  // Without the tag: every completed judge run, and no other kind or status.
  await filters.getByLabel("Tag").selectOption("");
  await expect(rowOf(page, weak.id)).toBeVisible();
  await expect(runsTable(page).locator("tbody tr").first()).toBeVisible();
  for (const status of await runsTable(page).locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-status")))) expect(status).toBe("completed");
});

test("two judge runs of the demo dataset selected on the Runs page open Compare with both chosen; other selections say why not", async ({ page }) => {
  test.setTimeout(200_000);
  await signIn(page);
  const { datasetId, strong, weak } = await demoJudges(page);
  await page.goto(`/runs?dataset=${datasetId}`);
  const annotate = runsTable(page).locator('tr[data-status="completed"]').filter({ hasText: "annotate" }).first();
  await expect(annotate).toBeVisible({ timeout: 30_000 });
  await annotate.getByRole("checkbox").check();
  await rowOf(page, weak.id).getByRole("checkbox").check();
  await page.getByTestId("run-selection").getByRole("button", { name: "Compare" }).click();
  await expect(page.getByRole("status")).toContainText("Only benchmark and judge runs can be compared; the selection also holds annotate runs.");
  await annotate.getByRole("checkbox").uncheck();
  await rowOf(page, strong.id).getByRole("checkbox").check();
  await expect(page.getByTestId("run-selection")).toContainText("2 selected");
  await page.getByTestId("run-selection").getByRole("button", { name: "Compare" }).click();

  await expect(page).toHaveURL(/\/compare\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get("dataset")).toBe(datasetId);
  expect(url.searchParams.get("runs")!.split(",").sort()).toEqual([strong.id, weak.id].sort());
  for (const id of [strong.id, weak.id]) await expect(page.locator(`[data-testid="compare-run-option"][data-run-id="${id}"]`).getByTestId("compare-run-checkbox")).toBeChecked();
});

test("a launched long judge run shows live progress on the Runs page and is cancelled from a selection", async ({ page }) => {
  test.setTimeout(200_000);
  await signIn(page);
  const { datasetId, weak } = await demoJudges(page);
  // Prices set now are snapshotted into the run launched next; the demo's runs were launched without.
  const endpoints = await query<Array<{ id: string; name: string }>>(page.request, "endpoint.list", {});
  await mutate(page.request, "endpoint.update", { id: endpoints.find((e) => e.name === "sim-judge-medium")!.id, promptPricePerMTokens: 2, completionPricePerMTokens: 8 });
  // Launched from the form with a name and a tag.
  await page.goto(`/runs/new?datasetId=${datasetId}`);
  const form = page.getByRole("form", { name: "Launch a run" });
  await form.getByLabel("Run kind").selectOption("judge");
  await form.locator("#run-field-judgeEndpoint").selectOption("sim-judge-medium");
  await openAdvanced(form);
  for (const [field, value] of [["samples", "32"], ["temperature", "1"], ["concurrency", "1"]]) await form.locator(`#run-field-${field}`).fill(value!);
  await expect(form.getByLabel("Name", { exact: true })).toHaveAttribute("placeholder", "generated from kind, model and parameters");
  await form.getByLabel("Name", { exact: true }).fill("e2e long judge");
  await form.getByLabel("Tags", { exact: true }).fill("e2e-long");
  await form.getByRole("button", { name: "Launch run" }).click();
  await expect(page).toHaveURL(/\/runs\/(?!new)[^/?#]+$/);
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("run-name")).toHaveText("e2e long judge");

  await page.goto("/runs?tag=e2e-long");
  const row = rowOf(page, runId);
  await expect(row).toHaveAttribute("data-status", "running", { timeout: 60_000 });
  const bar = row.getByRole("progressbar");
  const first = Number(await bar.getAttribute("aria-valuenow"));
  // The page polls while the run goes: units done move without a reload.
  await expect.poll(async () => Number(await bar.getAttribute("aria-valuenow")), { timeout: 90_000, intervals: [1000] }).toBeGreaterThan(first);
  await expect(row.getByTestId("run-progress")).toHaveText(/^\d+%$/);
  // Its cost at the snapshotted prices; a demo run's says why it has none.
  await expect(row.getByTestId("run-cost")).toHaveText(/^(\$\d+\.\d\d|<\$0\.01)$/);
  await page.goto("/runs");
  await expect(rowOf(page, runId).getByRole("progressbar")).toBeVisible();
  await expect(rowOf(page, weak.id).getByTestId("run-cost")).toHaveAttribute("title", 'endpoint "sim-judge-weak" had no prompt and completion prices when the run was launched');
  await page.screenshot({ path: screenshot("runs-page.png"), fullPage: true });

  await rowOf(page, runId).getByRole("checkbox").check();
  await page.getByTestId("run-selection").getByRole("button", { name: "Cancel 1 run" }).click();
  await expect(page.getByRole("status")).toContainText("Cancel requested for 1 run.");
  await expect(rowOf(page, runId)).toHaveAttribute("data-status", "cancelled", { timeout: 60_000 });
  // Audited per run, as the run page's cancel is.
  const audit = await query<{ entries: Array<{ action: string; entityId: string }> }>(page.request, "audit.list", { action: "run.cancel_requested", entityId: runId });
  expect(audit.entries.map((entry) => entry.action)).toEqual(["run.cancel_requested"]);
});

test("the Runs page sorts by average F1 on the server, either way, and hides data jobs unless asked", async ({ page }) => {
  test.setTimeout(200_000);
  await signIn(page);
  // The demo's benchmark pair, once both have finished (their figures are written when they do).
  await expect(async () => {
    const { runs } = await query<{ runs: ListedRun[] }>(page.request, "run.list", { kinds: ["benchmark"], statuses: ["completed"], search: "Demo benchmark" });
    expect(runs.length).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 150_000, intervals: [2000] });

  await page.goto("/runs");
  const header = runsTable(page).getByRole("columnheader", { name: /Average F1/ });
  /** The average F1 of each listed run that has one, in the order shown. */
  const shownF1s = async () => (await runsTable(page).getByTestId("run-averageF1").allTextContents()).map((text) => Number.parseFloat(text));
  await header.getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=averageF1/);
  await expect(header).toHaveAttribute("aria-sort", "descending");
  await expect(runsTable(page).locator("tbody tr").filter({ hasText: "Demo benchmark" }).getByTestId("run-averageF1")).toHaveCount(2);
  // The rows the server sent for this sort (the previous page stays on screen until they arrive): highest first.
  const firstHasF1 = () => runsTable(page).locator("tbody tr").first().getByTestId("run-averageF1").count();
  await expect.poll(firstHasF1).toBe(1);
  await expect.poll(async () => {
    const shown = await shownF1s();
    return shown.length >= 2 && shown.every((f1, i) => i === 0 || shown[i - 1]! >= f1);
  }).toBe(true);
  const descending = await shownF1s();
  // The simulated world is no ProcessBench subset: the average says it is partial, and over what.
  await expect(runsTable(page).getByTestId("run-averageF1").first()).toContainText("(partial)");
  await expect(runsTable(page).getByTestId("run-averageF1").first()).toHaveAttribute("title", /partial average: over the subset/);
  await page.screenshot({ path: screenshot("runs-sorted.png"), fullPage: true });

  await header.getByRole("button").click();
  await expect(page).toHaveURL(/[?&]order=asc/);
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  await expect.poll(shownF1s).toEqual([...descending].reverse());
  const ascending = await shownF1s();
  // Runs without an average F1 come after those with one, in either order.
  const cells = await runsTable(page).locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.querySelector('[data-testid="run-averageF1"]') !== null));
  expect(cells.indexOf(false)).toBe(ascending.length);

  // An import is a data job (this suite's demo has only the simulated world, so it imports one solution itself): hidden until asked for.
  const fileId = await upload(page.request, "runs-page.jsonl", `${JSON.stringify({ uid: "runs-page-1", question: "What is 1 + 1?", steps: ["1 + 1 = 2"] })}\n`);
  const { runId: importRunId } = await mutate<{ runId: string }>(page.request, "import.start", { fileId, options: { format: "jsonl", mapping: { problem: "question", steps: "steps", id: "uid" }, datasetName: "Runs page import" } });
  await page.goto("/runs");
  const imports = runsTable(page).locator('tbody tr[data-kind="import"]');
  await expect(runsTable(page).locator("tbody tr").first()).toBeVisible();
  await expect(imports).toHaveCount(0);
  const filters = page.getByRole("region", { name: "Filter runs" });
  await filters.getByRole("checkbox", { name: "Show data jobs" }).check();
  await expect(page).toHaveURL(/[?&]data=1/);
  await expect(rowOf(page, importRunId)).toBeVisible();
  await expect(rowOf(page, importRunId)).toHaveAttribute("data-kind", "import");
  await filters.getByRole("checkbox", { name: "Show data jobs" }).uncheck();
  await expect(imports).toHaveCount(0);
});
