import { expect, test } from "@playwright/test";
import { launchFromForm } from "./launch-run";
import { signIn } from "./sign-in";


function record(id: string, steps: string[], label = -1, problem = "What is 1 + 1?") {
  return { id, generator: "e2e-model", problem, steps, final_answer_correct: label === -1, label };
}

test("a malformed file is refused with the record and field, and no dataset appears", async ({ page }) => {
  await signIn(page);
  const bad = [record("bad-0", ["1 + 1 = 2"]), { ...record("bad-1", ["ok"]), label: "first" }];
  await page.getByLabel("Import file").setInputFiles({
    name: "broken.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(bad, null, 2)),
  });
  await page.getByLabel("Dataset name (optional)").fill("Broken upload");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  // Next.js keeps an empty route announcer with role="alert" on every page.
  const alert = page.getByRole("alert").filter({ hasText: "broken.json" });
  await expect(alert).toContainText("record 1", { timeout: 30_000 });
  await expect(alert).toContainText("label");
  await expect(page).toHaveURL(/\/datasets$/);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Datasets" })).toBeVisible();
  await expect(page.getByText("Loading…")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Broken upload" })).toHaveCount(0);
});

test("model output with HTML in it is shown as text, never run", async ({ page }) => {
  await signIn(page);
  let dialogs = 0;
  page.on("dialog", (dialog) => {
    dialogs += 1;
    void dialog.dismiss();
  });
  const hostile = [
    record(
      "xss-0",
      [
        'Let us compute. <img src=x onerror="alert(1)"> then <script>alert(2)</script>',
        "<b>So</b> the answer is 2. [click](javascript:alert(3)) and $\\href{javascript:alert(4)}{x}$ and $\\htmlData{foo=bar}{y}$ <svg onload=alert(5)>",
      ],
      1,
      'What is 1 + 1? <a href="javascript:alert(6)">here</a> ![pic](javascript:alert(7)) $\\frac{1}{2}$',
    ),
  ];
  await page.getByLabel("Import file").setInputFiles({
    name: "hostile.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(hostile)),
  });
  await page.getByLabel("Dataset name (optional)").fill("Hostile text");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-status")).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await page.getByRole("link", { name: "Open the dataset" }).click();
  await page.getByRole("link", { name: "xss-0", exact: true }).click();

  const chunks = page.getByTestId("chunk");
  await expect(chunks).toHaveCount(2);
  await expect(chunks.nth(0)).toContainText('<img src=x onerror="alert(1)">');
  await expect(chunks.nth(0)).toContainText("<script>alert(2)</script>");
  await expect(chunks.nth(1)).toContainText("<b>So</b>");
  await expect(page.locator("main img, main script, main b, main iframe")).toHaveCount(0);
  await expect(page.locator('main [href^="javascript:"], main [src^="javascript:"]')).toHaveCount(0);
  await expect(page.locator("main [onerror], main [onload], main [data-foo]")).toHaveCount(0);
  await expect(page.locator("main .katex").first()).toBeVisible(); // real math still renders

  // A judge quotes the chunks it judges: its rationales carry the same payloads.
  const inspectorUrl = page.url();
  await page.getByRole("link", { name: /Hostile text/ }).first().click();
  await launchFromForm(page, "judge", { judgeEndpoint: "sim-judge-strong", segmentationMethod: "processbench-paragraphs" });
  await expect(page.getByTestId("run-percent")).toHaveText("100%", { timeout: 90_000 });
  await page.goto(inspectorUrl);
  const cells = page.getByTestId("judge-cell");
  await expect(cells).toHaveCount(2);
  for (const cell of await cells.all()) await cell.getByRole("button").first().click();
  await expect(page.getByTestId("rationale").nth(0)).toContainText("<script>alert(2)</script>");
  await expect(page.getByTestId("rationale").nth(1)).toContainText("<svg");
  await expect(page.locator("main img, main script, main b, main iframe")).toHaveCount(0);
  await expect(page.locator('main [href^="javascript:"], main [src^="javascript:"]')).toHaveCount(0);
  await expect(page.locator("main [onerror], main [onload], main [data-foo]")).toHaveCount(0);
  await page.waitForTimeout(500); // give any injected handler a moment to fire
  expect(dialogs).toBe(0);
});
