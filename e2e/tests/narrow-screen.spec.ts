import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./sign-in";

/** The page is usable on a phone: nothing forces the whole page to scroll sideways (wide tables scroll inside their own box). */
async function expectNoPageOverflow(page: Page) {
  await expect(page.getByText("Loading…")).toHaveCount(0);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
}

test("datasets, solutions, the inspector, a run and the launch form fit a narrow screen", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page);
  await expectNoPageOverflow(page);
  await page.getByRole("link", { name: "Simulated world (demo)" }).click();
  await expect(page.getByRole("search", { name: "Filter solutions" })).toBeVisible();
  await expectNoPageOverflow(page);
  await page.getByRole("link", { name: "sim-2025-0", exact: true }).click();
  await expect(page.getByTestId("chunk").first()).toBeVisible();
  await expectNoPageOverflow(page);
  await page.goBack();
  await page.getByRole("navigation", { name: "Dataset sections" }).getByRole("link", { name: "Runs", exact: true }).click();
  await page.getByRole("row").nth(1).getByRole("link").click();
  await expect(page.getByRole("region", { name: "Progress" })).toBeVisible();
  await expectNoPageOverflow(page);
  await page.goto("/runs/new");
  await expect(page.getByRole("form", { name: "Launch a run" })).toBeVisible();
  await expectNoPageOverflow(page);
});
