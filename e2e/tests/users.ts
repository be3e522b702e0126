import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../playwright.config";

export interface Account {
  email: string;
  name: string;
  role: "viewer" | "annotator" | "researcher" | "admin";
  password: string;
}

/** Adds users through the admin's Users page, as an admin would. */
export async function addUsers(page: Page, accounts: Account[]) {
  await page.goto("/admin/users");
  const form = page.locator("form", { has: page.getByRole("heading", { name: "Add a user" }) });
  for (const account of accounts) {
    await form.getByLabel("Email").fill(account.email);
    await form.getByLabel("Name").fill(account.name);
    await form.getByLabel("Role").selectOption(account.role);
    await form.getByLabel("Initial password (8+ characters)").fill(account.password);
    await form.getByRole("button", { name: "Add user" }).click();
    await expect(form.getByText(`Added ${account.email}`)).toBeVisible();
  }
}

export async function signInAs(page: Page, email: string, password: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Each role lands where it has work: annotators on their queues, everyone else on the datasets.
  await expect(page).toHaveURL(/\/(datasets|annotation-queues)$/);
}

/** A separate browser context (own cookies) signed in as `account`: several people at once. */
export async function sessionFor(browser: Browser, account: Pick<Account, "email" | "password">): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInAs(page, account.email, account.password);
  return { context, page };
}

export const admin = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD };
