import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./sign-in";
import { query, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

const RULE = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;
const RULE_NAME = "rel-ratio(gamma=0.7)";
const N = 5;

interface RunSummary {
  id: string;
  kind: string;
  createdAt: string;
}

interface ListPage {
  total: number;
  items: Array<{ id: string; externalId: string; lowestConfidence: number | null }>;
}

/** The demo dataset's id and its own annotate run (the first one; other specs may launch more), once that run has finished. */
async function demoAnnotateRun(page: Page): Promise<{ datasetId: string; runId: string }> {
  await page.getByRole("link", { name: "Simulated world (demo)" }).click();
  await expect(page).toHaveURL(/\/datasets\/[^/?]+$/);
  const datasetId = new URL(page.url()).pathname.split("/").pop()!;
  let runId: string | undefined;
  await expect(async () => {
    const { runs } = await query<{ runs: RunSummary[] }>(page.request, "run.list", { datasetId, pageSize: 200 });
    runId = runs.filter((r) => r.kind === "annotate").sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]?.id;
    expect(runId).toBeDefined();
  }).toPass({ timeout: 30_000 });
  await waitForRun(page.request, runId!, 150_000);
  return { datasetId, runId: runId! };
}

/** The count the list page states above its table ("24 matching"). */
async function matching(page: Page): Promise<number> {
  const text = await page.getByText(/^\d[\d,]*\+? matching/).textContent();
  return Number(text!.match(/^[\d,]+/)![0].replaceAll(",", ""));
}

test("label confidence: unsure chips in the inspector, the solutions list filtered and sorted by lowest confidence, a queue of the least confident", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  const { datasetId, runId } = await demoAnnotateRun(page);

  // Inspector: every label chip says how sure it is, on hover and to screen readers.
  await page.getByRole("link", { name: "sim-2025-0", exact: true }).click();
  await expect(page).toHaveURL(/\/solutions\//);
  const chip = page.getByTestId("label-rel-ratio").first();
  await expect(chip).toBeVisible();
  await chip.hover();
  await expect(chip).toHaveAttribute("title", /^rel-ratio (Positive|Negative) · confidence ([<>] )?\d\.\d+$/);
  await expect(chip).toContainText(/confidence ([<>] )?\d\.\d+/); // the screen-reader text
  const titles = await page.locator('[data-testid^="label-"]').evaluateAll((chips) => chips.map((c) => c.getAttribute("title") ?? ""));
  expect(titles.length).toBeGreaterThan(0);
  expect(titles.every((t) => / · (confidence ([<>] )?\d\.\d+|no confidence)$/.test(t))).toBe(true);
  // An unsure chip (below 0.8) carries a "?" and a dashed border; moving γ relabels and recomputes the confidences live.
  const unsure = page.locator('[data-testid^="label-"][data-unsure="true"]');
  await page.getByRole("slider", { name: "γ" }).fill("1");
  await expect(unsure.first()).toBeVisible();
  await expect(unsure.first()).toContainText("?");
  await expect(unsure.first()).toHaveCSS("border-style", "dashed");
  await page.getByRole("slider", { name: "γ" }).fill("0.7");
  await chip.hover();
  await page.screenshot({ path: screenshot("label-confidence-inspector.png"), fullPage: true });

  // Solutions list: choose the annotate run and a rule; the lowest confidence is a column.
  await page.goto(`/datasets/${datasetId}`);
  await page.getByLabel("Annotate run").selectOption(runId);
  await page.getByLabel("Confidence rule").selectOption({ label: RULE_NAME });
  await expect(page.getByRole("columnheader", { name: /Lowest confidence/ })).toBeVisible();
  const all = await query<ListPage>(page.request, "solution.list", { datasetId, annotateRunId: runId, confidenceRule: RULE, pageSize: 500 });
  await expect.poll(() => matching(page)).toBe(all.total);
  const values = all.items.map((t) => t.lowestConfidence).filter((v): v is number => v !== null);
  expect(values.length).toBeGreaterThan(1);
  // A bound (two decimals, as typed) that keeps some solutions but not all: the one keeping nearest half of them.
  const keptBy = (bound: number) => values.filter((v) => v <= bound).length;
  const bounds = [...new Set(values.map((v) => Math.ceil(v * 100) / 100))].filter((b) => keptBy(b) > 0 && keptBy(b) < all.total);
  const max = bounds.sort((a, b) => Math.abs(keptBy(a) - all.total / 2) - Math.abs(keptBy(b) - all.total / 2))[0];
  expect(max).toBeDefined();
  const kept = keptBy(max!);
  await page.getByLabel("Lowest confidence at most").fill(String(max));
  await expect.poll(() => matching(page)).toBe(kept);
  expect(kept).toBeLessThan(all.total);
  const shown = page.getByTestId("lowest-confidence");
  await expect(shown.first()).toBeVisible();
  for (const cell of await shown.all()) {
    expect(Number(await cell.getAttribute("data-value"))).toBeLessThanOrEqual(max!);
    expect(Number(await cell.textContent())).toBeLessThanOrEqual(max!);
  }
  // Sorted by the column: ascending, the least confident first.
  await page.getByRole("columnheader", { name: /Lowest confidence/ }).getByRole("button").click();
  await expect(page).toHaveURL(/sort=lowestConfidence/);
  await expect.poll(async () => Number(await shown.first().getAttribute("data-value"))).toBe(Math.min(...values));
  // The header click scrolled the wide table sideways; back to its start for the picture.
  await page.getByRole("table").evaluate((table) => {
    for (let e: Element | null = table; e; e = e.parentElement) e.scrollLeft = 0;
  });
  await page.screenshot({ path: screenshot("label-confidence-list.png"), fullPage: true });

  // A queue of the N least confident solutions under that rule.
  await page.goto("/annotation-queues/new");
  await page.getByLabel("Name").fill("Least confident Rel-Ratio labels");
  await page.getByLabel("Dataset").selectOption(datasetId);
  await page.getByLabel("Monte-Carlo labels audited (annotate run)").selectOption(runId);
  await page.getByLabel("Selection").selectOption({ label: "The least confident labels of the annotate run" });
  await page.getByLabel("Least confident under the rule").selectOption({ label: RULE_NAME });
  await page.getByLabel("Number of solutions (N)").fill(String(N));
  await page.screenshot({ path: screenshot("label-confidence-queue.png"), fullPage: true });
  await page.getByRole("button", { name: "Create queue" }).click();
  await expect(page).toHaveURL(/\/annotation-queues\/(?!new)[^/?]+$/);
  await expect(page.getByTestId("queue-progress")).toContainText(`0 of ${N} items done`);
  await expect(page.getByText(`audits ${RULE_NAME} labels`)).toBeVisible();
  const queueId = new URL(page.url()).pathname.split("/").pop()!;
  const queue = await query<{ selection: unknown; annotateRunId: string; labelRule: unknown; progress: { items: number } }>(page.request, "annotationQueue.queue", { queueId });
  expect(queue).toMatchObject({ annotateRunId: runId, labelRule: RULE, selection: { kind: "least-confident", annotateRunId: runId, rule: RULE, count: N }, progress: { items: N } });
});
