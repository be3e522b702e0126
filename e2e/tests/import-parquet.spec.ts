import { expect, test } from "@playwright/test";
import { chooseDemoLabels } from "./demo-labels";
import { signIn } from "./sign-in";

/**
 * A Parquet file made by the app itself (the verl training set of the demo's
 * annotate run), uploaded again through the import panel as "Parquet (field
 * mapping)": the preview names rows, and the import writes one solution per row.
 */
test("imports a Parquet file through the import panel with a field mapping: upload, preview by row, import", async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page);
  await chooseDemoLabels(page);
  await page.getByRole("form", { name: "Export a training set" }).getByLabel("Format").selectOption("verl");
  await page.getByRole("button", { name: "Export training set" }).click();
  const row = page.getByTestId("export-row").first();
  await expect(row).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  // The split table's third column: the train split's rows.
  const trainRows = Number((await row.getByTestId("export-splits").locator('[data-split="train"] td').nth(2).innerText()).replace(/\D/g, ""));
  expect(trainRows).toBeGreaterThan(0);
  const link = row.getByTestId("export-file-link").filter({ hasText: "train.parquet" });
  const parquet = await (await page.request.get((await link.getAttribute("href"))!)).body();
  expect(parquet.subarray(0, 4).toString("latin1")).toBe("PAR1");

  await page.goto("/datasets");
  await page.getByLabel("Import file").setInputFiles({ name: "e2e-train.parquet", mimeType: "application/vnd.apache.parquet", buffer: parquet });
  await page.getByLabel("Format").selectOption("parquet");
  await expect(page.getByRole("group", { name: "Field mapping" })).toBeVisible();
  await page.getByLabel("Problem field").fill("prompt.0.content");
  await page.getByLabel("Steps come from").selectOption("text");
  await page.getByLabel("Text field").fill("reward_model.ground_truth");
  await page.getByLabel(/^Split/).selectOption("lines");
  await page.getByLabel("Answer field").fill("reward_model.ground_truth");
  await page.getByLabel("Id field").fill("extra_info.index");
  await page.getByLabel("Dataset name (optional)").fill("E2E Parquet");

  await page.getByRole("button", { name: "Preview" }).click();
  const preview = page.getByRole("region", { name: "Import preview" });
  await expect(preview.getByRole("columnheader", { name: "Row" })).toBeVisible();
  const rows = page.getByTestId("preview-row");
  await expect(rows).toHaveCount(Math.min(20, trainRows));
  await expect(page.getByTestId("preview-error")).toHaveCount(0);
  await expect(rows.nth(0)).toContainText(/Positive|Negative/);

  // A mapping naming a column the file lacks: one error, naming the file and the column.
  await page.getByLabel("Problem field").fill("question.problem");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("preview-error")).toContainText('e2e-train.parquet, field "--map": column "question" (mapped to problem) is not in the file');
  await page.getByLabel("Problem field").fill("prompt.0.content");

  await page.getByRole("button", { name: "Import", exact: true }).click();
  const status = page.getByTestId("import-status");
  await expect(status).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  // Every row is read; rows with the same prompt and label (the same chunk in the same context, e.g. two
  // solutions of a problem that open alike) are one solution's content, stored once and counted as skipped.
  const summary = page.getByTestId("import-summary");
  await expect(summary).toContainText(`${trainRows} records`);
  const [, written, skipped] = /(\d+) written · (\d+) skipped/.exec(await summary.innerText())!.map(Number);
  expect(written! + skipped!).toBe(trainRows);
  expect(written).toBeGreaterThan(0);
  await status.getByRole("link", { name: "Open the dataset" }).click();
  await expect(page.getByRole("heading", { name: "E2E Parquet" })).toBeVisible();
});
