import { expect, test } from "@playwright/test";
import { chooseDemoLabels } from "./demo-labels";
import { signIn } from "./sign-in";

/** One PRM800K (phase 2) line: a labeller's path through a solution, one rated completion per step. */
function prm800kLine(problem: string, steps: Array<{ text: string; rating: -1 | 0 | 1 }>, finishReason: "solution" | "found_error") {
  return JSON.stringify({
    labeler: "e2e-labeler",
    timestamp: "2023-01-22T04:34:27.052924",
    generation: 1,
    is_quality_control_question: false,
    is_initial_screening_question: false,
    question: { problem, ground_truth_answer: "4" },
    label: {
      steps: steps.map((s) => ({ completions: [{ text: s.text, rating: s.rating, flagged: null }], human_completion: null, chosen_completion: 0 })),
      total_time: 1000,
      finish_reason: finishReason,
    },
  });
}

const PRM800K_FILE = [
  prm800kLine("What is 2 + 2?", [{ text: "2 + 2 = 4.", rating: 1 }, { text: "# Answer\n\n4", rating: 1 }], "solution"),
  prm800kLine("What is 3 + 1?", [{ text: "3 + 1 = 5.", rating: -1 }], "found_error"),
].join("\n");

test("imports a PRM800K file through the import panel: upload, preview, import, open the dataset", async ({ page }) => {
  await signIn(page);
  await page.getByLabel("Import file").setInputFiles({ name: "e2e-prm800k.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(PRM800K_FILE) });
  await page.getByLabel("Format").selectOption("prm800k");
  await page.getByLabel("Dataset name (optional)").fill("E2E PRM800K");

  await page.getByRole("button", { name: "Preview" }).click();
  const rows = page.getByTestId("preview-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("What is 2 + 2?");
  await expect(rows.nth(0)).toContainText("2 rated");
  await expect(rows.nth(1)).toContainText("first error: step 0");
  await expect(page.getByTestId("preview-error")).toHaveCount(0);

  await page.getByRole("button", { name: "Import", exact: true }).click();
  const status = page.getByTestId("import-status");
  await expect(status).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(page.getByTestId("import-summary")).toContainText("2 written");
  await expect(page.getByTestId("import-summary")).toContainText("3 human labels");
  await status.getByRole("link", { name: "Open the dataset" }).click();
  await expect(page).toHaveURL(/\/datasets\/[^/]+/);
  await expect(page.getByRole("heading", { name: "E2E PRM800K" })).toBeVisible();
});

test("exports a verl training set from the demo's annotate run and downloads train.parquet", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  await chooseDemoLabels(page);
  const form = page.getByRole("form", { name: "Export a training set" });
  await form.getByLabel("Format").selectOption("verl");
  // A rollout may generate the paper's 3096 tokens unless the form says otherwise; the launch line takes what it says.
  const maxResponse = form.getByTestId("export-max-response-tokens");
  await expect(maxResponse).toHaveValue("3096");
  await maxResponse.fill("4096");
  await page.getByRole("button", { name: "Export training set" }).click();

  const row = page.getByTestId("export-row").first();
  await expect(row).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(row.getByTestId("export-splits").locator('[data-split="train"]')).toBeVisible();
  const link = row.getByTestId("export-file-link").filter({ hasText: "train.parquet" });
  await expect(link).toBeVisible();

  const href = (await link.getAttribute("href"))!;
  const response = await page.request.get(href);
  expect(response.status()).toBe(200);
  expect(response.headers()["content-disposition"]).toContain('filename="train.parquet"');
  const body = await response.body();
  expect(body.length).toBeGreaterThan(0);
  expect(body.subarray(0, 4).toString("latin1")).toBe("PAR1"); // Parquet's magic number

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toBe("train.parquet");

  const manifestLink = row.getByTestId("export-file-link").filter({ hasText: "manifest.json" });
  const manifest = JSON.parse((await (await page.request.get((await manifestLink.getAttribute("href"))!)).body()).toString("utf8")) as { launch: { command: string } };
  expect(manifest.launch.command).toContain("data.max_response_length=4096");
  await expect(row.getByTestId("export-file-link").filter({ hasText: "requirements.txt" })).toBeVisible();
});
