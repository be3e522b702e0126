import { expect, type Page } from "@playwright/test";

/**
 * On the Exports page: waits until the demo's annotate run has finished (it may
 * still be working when the server has just started), then picks it as the
 * label source and its first label rule. The run is found by its demo name,
 * because other tests launch annotate runs on the demo dataset too.
 */
export async function chooseDemoLabels(page: Page): Promise<void> {
  await page.getByTestId("nav-exports").click();
  await expect(page).toHaveURL(/\/exports$/);
  const source = page.getByTestId("export-label-source");
  const demoRun = source
    .locator('option[data-kind="annotate"][data-dataset="Simulated world (demo)"][data-status^="completed"]')
    .filter({ hasText: "Demo: Monte-Carlo labels" });
  await expect(async () => {
    await page.reload();
    await expect(demoRun).toHaveCount(1, { timeout: 2_000 });
  }).toPass({ timeout: 200_000 });
  await source.selectOption((await demoRun.getAttribute("value"))!);
  const rule = page.getByTestId("export-rule");
  await expect(rule.locator("option")).not.toHaveCount(1);
  await rule.selectOption({ index: 1 });
}
