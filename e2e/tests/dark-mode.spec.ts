import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../playwright.config";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Relative luminance (WCAG) of a CSS property of the first element matching the selector, as the browser computes it:
 * the computed colour is painted on a canvas and read back as sRGB, whatever notation (rgb, oklch…) it is in.
 */
async function luminanceOf(page: Page, selector: string, property: "background-color" | "color" | "stroke" | "fill" = "background-color"): Promise<number> {
  return page.evaluate(
    ([selector, property]) => {
      const element = document.querySelector(selector!);
      if (!element) throw new Error(`no element ${selector}`);
      const value = getComputedStyle(element).getPropertyValue(property!);
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      const context = canvas.getContext("2d")!;
      context.fillStyle = value;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b] = [...context.getImageData(0, 0, 1, 1).data].map((channel) => {
        const c = channel / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    },
    [selector, property],
  );
}

/**
 * Signs in from whatever page is open: the first spec of a fresh server runs while the demo's runs load both cores,
 * so the redirect gets more time than the shared helper gives it.
 */
async function signIn(page: Page) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/datasets/, { timeout: 30_000 });
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

async function expectDark(page: Page) {
  await expect(page.locator("html")).toHaveClass(/(^|\s)dark(\s|$)/);
  expect(await luminanceOf(page, "body")).toBeLessThan(0.05);
  // The text on it is light.
  expect(await luminanceOf(page, "body", "color")).toBeGreaterThan(0.6);
}

async function expectLight(page: Page) {
  await expect(page.locator("html")).not.toHaveClass(/(^|\s)dark(\s|$)/);
  expect(await luminanceOf(page, "body")).toBeGreaterThan(0.85);
  expect(await luminanceOf(page, "body", "color")).toBeLessThan(0.1);
}

function themeButton(page: Page, name: "System" | "Light" | "Dark") {
  return page.getByTestId("theme-toggle").getByRole("button", { name, exact: true });
}

test.describe("with the system in dark mode", () => {
  test.use({ colorScheme: "dark" });

  test("pages render dark; Light is chosen, remembered across a reload and a new page, and System brings dark back", async ({ page, context }) => {
    await page.goto("/sign-in");
    await expectDark(page);
    await expect(themeButton(page, "System")).toHaveAttribute("aria-pressed", "true");

    await signIn(page);
    await expectDark(page);
    // The navigation bar and the cards are dark too, not only the page behind them.
    expect(await luminanceOf(page, "header")).toBeLessThan(0.05);
    // The toggle fits in the navigation bar of a 1280-pixel screen: Sign out stays on the first row.
    const brand = (await page.getByRole("link", { name: "StepWiser Studio" }).boundingBox())!;
    const signOut = (await page.getByRole("button", { name: "Sign out" }).boundingBox())!;
    expect(Math.abs(signOut.y + signOut.height / 2 - (brand.y + brand.height / 2))).toBeLessThan(8);

    await themeButton(page, "Light").click();
    await expectLight(page);
    await expect(themeButton(page, "Light")).toHaveAttribute("aria-pressed", "true");

    await page.reload();
    await expectLight(page);
    await expect(themeButton(page, "Light")).toHaveAttribute("aria-pressed", "true");

    const other = await context.newPage();
    await other.goto("/datasets");
    await expectLight(other);
    await expect(themeButton(other, "Light")).toHaveAttribute("aria-pressed", "true");

    await themeButton(page, "System").click();
    await expectDark(page);
    // The other tab hears the change.
    await expectDark(other);
    await expect(themeButton(other, "System")).toHaveAttribute("aria-pressed", "true");
    await other.close();
  });

  test("the theme is set by the page's own HTML, before any of the app's scripts run (no flash of the wrong theme)", async ({ page }) => {
    await signIn(page);
    await themeButton(page, "Light").click();
    await expectLight(page);
    // Without the app's JavaScript bundles only the inline script in <head> can decide the colours.
    await page.route("**/_next/static/**/*.js", (route) => route.abort());
    await page.goto("/datasets");
    await expectLight(page);
    await page.evaluate(() => localStorage.removeItem("stepwiser-theme"));
    await page.goto("/datasets");
    await expectDark(page);
  });

  test("a solution in the inspector is readable in dark mode: text, chart and rationale", async ({ page }) => {
    test.setTimeout(150_000);
    await signIn(page);
    await page.getByRole("link", { name: "Simulated world (demo)" }).click();
    await page.getByRole("link", { name: "sim-2025-0", exact: true }).click();
    await expect(page).toHaveURL(/\/solutions\//);
    // The demo's annotate and judge runs finish in the background after start-up.
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("label-rel-ratio").first()).toBeVisible({ timeout: 2000 });
      await expect(page.getByTestId("judge-cell")).not.toHaveCount(0, { timeout: 2000 });
    }).toPass({ timeout: 120_000, intervals: [2000] });
    await expectDark(page);

    await page.getByTestId("judge-cell").first().getByRole("button").click();
    await expect(page.getByTestId("rationale").first()).toBeVisible();

    // The Q curve: its line stands out from the dark card it is drawn on, and the grid is dark.
    const chart = "figure:has(.recharts-line-curve)";
    const card = await luminanceOf(page, chart);
    expect(card).toBeLessThan(0.05);
    const curve = await luminanceOf(page, `${chart} .recharts-line-curve`, "stroke");
    expect(contrast(curve, card)).toBeGreaterThanOrEqual(3);
    expect(await luminanceOf(page, `${chart} .recharts-cartesian-grid line`, "stroke")).toBeLessThan(0.1);
    const tick = await luminanceOf(page, `${chart} .recharts-cartesian-axis-tick-value`, "fill");
    expect(contrast(tick, card)).toBeGreaterThanOrEqual(4.5);

    await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/dark-mode.png"), fullPage: true });
  });
});

test.describe("with the system in light mode", () => {
  test.use({ colorScheme: "light" });

  test("pages render light by default, and a Dark choice keeps them dark across reloads", async ({ page }) => {
    await page.goto("/sign-in");
    await expectLight(page);
    await themeButton(page, "Dark").click();
    await expectDark(page);
    await signIn(page);
    await expectDark(page);
    await expect(themeButton(page, "Dark")).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await expectDark(page);
    await page.goto("/exports");
    await expectDark(page);
  });
});
