import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");


test("the inspector shows Q-values, live labels and the demo judges' rationales of a simulated solution", async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page);
  await page.getByRole("link", { name: "Simulated world (demo)" }).click();
  await page.getByRole("link", { name: "sim-2025-0", exact: true }).click();
  await expect(page).toHaveURL(/\/solutions\//);
  const inspectorUrl = page.url();

  // The demo's annotate, benchmark and judge runs run in the background after start-up: wait for their results
  // (a row per run that judged the chunk: the benchmark pair's and the two judge runs').
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("label-rel-ratio").first()).toBeVisible({ timeout: 2000 });
    await expect(page.getByTestId("judge-cell")).not.toHaveCount(0, { timeout: 2000 });
    const judgesPerChunk = await page.getByTestId("chunk").first().getByTestId("judge-cell").count();
    expect(judgesPerChunk).toBe(4);
  }).toPass({ timeout: 120_000, intervals: [2000] });

  const negatives = () => page.locator('[data-testid="label-rel-ratio"][data-label="Negative"]').count();
  await page.getByRole("slider", { name: "γ" }).fill("0.1");
  const lenient = await negatives();
  await page.getByRole("slider", { name: "γ" }).fill("1.5");
  await expect.poll(negatives).toBeGreaterThan(lenient);

  await page.getByTestId("judge-cell").first().getByRole("button").click();
  await expect(page.getByTestId("rationale").first()).toContainText("Final Judgment");
  await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/inspector.png"), fullPage: true });

  await page.goto(`${inspectorUrl}#chunk-2`);
  await expect(page.locator("#chunk-2")).toBeInViewport();
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/#chunk-3$/);

  // A link saved when a solution's page was /trajectories/[id] still opens it.
  const { pathname } = new URL(inspectorUrl);
  const response = await page.goto(pathname.replace("/solutions/", "/trajectories/"));
  expect(response?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe(pathname);
  await expect(page.getByTestId("chunk").first()).toBeVisible();
});
