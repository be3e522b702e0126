import { expect, type Page } from "@playwright/test";

/** From a dataset page: opens its Runs tab, fills the launch form (fields by name) and submits; ends on the new run's page. */
export async function launchFromForm(page: Page, kind: string, fields: Record<string, string>) {
  await page.getByRole("navigation", { name: "Dataset sections" }).getByRole("link", { name: "Runs", exact: true }).click();
  await page.getByRole("link", { name: "Launch a run" }).click();
  const form = page.getByRole("form", { name: "Launch a run" });
  await form.getByLabel("Run kind").selectOption(kind);
  for (const [name, value] of Object.entries(fields)) {
    const control = form.locator(`#run-field-${name}`);
    if ((await control.evaluate((e) => e.tagName)) === "SELECT") await control.selectOption(value);
    else await control.fill(value);
  }
  await form.getByRole("button", { name: "Launch run" }).click();
  await expect(page).toHaveURL(/\/runs\/(?!new)[^/?#]+$/);
}
