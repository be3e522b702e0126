import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../playwright.config";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const gsm8k = path.join(repoRoot, "packages/db/seed/processbench/gsm8k.json");

test("anonymous visitors are sent to sign-in", async ({ page }) => {
  await page.goto("/datasets");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("wrong password is refused with a message", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in/);
});

test("sign in, import ProcessBench, open a solution and see its first-error marker", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/datasets/);

  await page.getByLabel("Import file").setInputFiles(gsm8k);
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-status")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  await page.goto("/datasets");
  const datasetLink = page.getByRole("link", { name: /ProcessBench gsm8k/ }).first();
  await expect(datasetLink).toBeVisible();
  await datasetLink.click();
  await expect(page).toHaveURL(/\/datasets\/[^/]+/);

  // gsm8k-1 has its first error at paragraph 1 (ProcessBench label).
  await page.getByRole("link", { name: "gsm8k-1", exact: true }).click();
  await expect(page).toHaveURL(/\/solutions\//);
  await expect(page.getByTestId("chunk").first()).toBeVisible();
  const marker = page.getByTestId("first-error-marker");
  await expect(marker).toBeVisible();
  const flagged = page.locator('[data-first-error="true"]');
  await expect(flagged).toHaveCount(1);
  await expect(flagged).toHaveAttribute("id", "chunk-1");
  await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/solution.png"), fullPage: true });
});
