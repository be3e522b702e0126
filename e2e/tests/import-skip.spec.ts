import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * A generic JSONL file of 40 records, 3 of them unreadable: steps that are not a list (lines 6 and 31) and a line
 * that is not JSON (line 18), which quotes markup the page must show as text.
 */
function fileWithBadRecords(): string {
  return Array.from({ length: 40 }, (_, i) => {
    const line = i + 1;
    if (line === 6 || line === 31) return JSON.stringify({ uid: `bad-${line}`, question: "What is 1 + 1?", steps: "2" });
    if (line === 18) return '{"uid": "broken", <b data-e2e="injected">bold</b>';
    return JSON.stringify({ uid: `skip-e2e-${line}`, question: `What is ${line} + 3?`, steps: [`${line} + 3`, `= ${line + 3}`] });
  }).join("\n");
}

test("a file with a few bad records imports in skip mode and its page reports them, with the JSONL download", async ({ page }) => {
  await signIn(page);
  await page.getByLabel("Import file").setInputFiles({ name: "e2e-skip.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(fileWithBadRecords()) });
  await page.getByLabel("Format").selectOption("jsonl");
  await page.getByLabel("Problem field").fill("question");
  await page.getByLabel("Steps field").fill("steps");
  await page.getByLabel("Dataset name (optional)").fill("E2E skip import");
  await page.getByLabel("On invalid records").selectOption("skip");
  const share = page.getByLabel("Largest invalid share (%)");
  await expect(share).toHaveValue("5");
  await share.fill("10");

  await page.getByRole("button", { name: "Import", exact: true }).click();
  const status = page.getByTestId("import-status");
  await expect(status).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(page.getByTestId("import-summary")).toContainText("37 written");
  await expect(page.getByTestId("import-summary")).toContainText("3 invalid skipped");

  await status.getByRole("link", { name: "See the report" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/#]+#report$/);
  const report = page.getByTestId("import-report");
  await expect(report).toBeVisible();
  await expect(report.getByTestId("fact-Records")).toHaveText("40");
  await expect(report.getByTestId("fact-Imported")).toHaveText("37");
  await expect(report.getByTestId("fact-Invalid")).toHaveText("3 (7.5 %)");
  await expect(report.getByTestId("fact-Ignored")).toHaveText("0 (0 %)");

  const reasons = report.getByTestId("import-report-reasons").locator("tbody tr");
  await expect(reasons).toHaveCount(2);
  await expect(reasons.nth(0)).toContainText("steps: expected an array of step strings, got string (mapped to steps)");
  await expect(reasons.nth(0)).toContainText("2");
  await expect(reasons.nth(1)).toContainText("not valid JSON");

  const entries = report.getByTestId("import-report-entries").locator("tbody tr");
  await expect(entries).toHaveCount(3);
  await expect(entries.nth(0)).toHaveAttribute("data-line", "6");
  await expect(entries.nth(0)).toContainText("steps");
  await expect(entries.nth(1)).toHaveAttribute("data-line", "18");
  await expect(entries.nth(1)).toContainText("not valid JSON");
  await expect(entries.nth(2)).toHaveAttribute("data-line", "31");
  // The record's text is shown as text, never as markup.
  await expect(page.locator('[data-e2e="injected"]')).toHaveCount(0);

  const link = report.getByTestId("import-report-download");
  await expect(link).toHaveText("Download report (JSONL)");
  const response = await page.request.get((await link.getAttribute("href"))!);
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("application/x-ndjson");
  const lines = (await response.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { file: string; line: number; record: number | null; field: string | null; reason: string; kind: string });
  expect(lines.map((l) => [l.file, l.line, l.record, l.field, l.kind])).toEqual([
    ["e2e-skip.jsonl", 6, 5, "steps", "invalid"],
    ["e2e-skip.jsonl", 18, 17, null, "invalid"],
    ["e2e-skip.jsonl", 31, 30, "steps", "invalid"],
  ]);
  expect(lines[0]!.reason).toBe("expected an array of step strings, got string (mapped to steps)");
  expect(lines[1]!.reason).toMatch(/^not valid JSON/);

  await report.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/import-report.png"), fullPage: true });
});
