import { expect, type Locator, type Page } from "@playwright/test";

/** Unfolds the launch form's Advanced section (seeds, concurrency, sampling limits…), when the kind has one and it is closed. */
export async function openAdvanced(form: Locator) {
  const details = form.getByTestId("advanced-fields");
  if ((await details.count()) === 0) return;
  if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open))) await details.locator("summary").click();
  await expect(details).toHaveAttribute("open", "");
}

/** From a dataset page: opens its Runs tab, fills the launch form (fields by name) and submits once the form is checked; ends on the new run's page. */
export async function launchFromForm(page: Page, kind: string, fields: Record<string, string>) {
  await page.getByRole("navigation", { name: "Dataset sections" }).getByRole("link", { name: "Runs", exact: true }).click();
  await page.getByRole("link", { name: "Launch a run" }).click();
  const form = page.getByRole("form", { name: "Launch a run" });
  await form.getByLabel("Run kind").selectOption(kind);
  await openAdvanced(form);
  for (const [name, value] of Object.entries(fields)) {
    const control = form.locator(`#run-field-${name}`);
    if ((await control.evaluate((e) => e.tagName)) === "SELECT") await control.selectOption(value);
    else await control.fill(value);
  }
  // Launch is enabled once the server has checked the configuration.
  await form.getByRole("button", { name: "Launch run" }).click();
  await expect(page).toHaveURL(/\/runs\/(?!new)[^/?#]+$/);
}
