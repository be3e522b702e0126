import { expect, test } from "@playwright/test";
import { chooseDemoLabels } from "./demo-labels";
import { signIn } from "./sign-in";

test("exports TRL stepwise supervision from the demo's annotate run: Parquet, JSONL and a dataset card", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  await chooseDemoLabels(page);

  const form = page.getByRole("form", { name: "Export a training set" });
  await expect(form.getByTestId("export-balance-solutions")).toHaveCount(0);
  await form.getByLabel("Format").selectOption("trl-prm");
  // Balancing by solution is offered for this format only, and off unless ticked.
  await expect(form.getByTestId("export-balance-solutions")).not.toBeChecked();
  await form.getByLabel("Held-out fraction").fill("0");
  await page.getByRole("button", { name: "Export training set" }).click();

  const row = page.getByTestId("export-row").first();
  await expect(row).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(row).toContainText("trl-prm");
  const fileLink = (name: string) => row.getByTestId("export-file-link").filter({ hasText: new RegExp(`^${name.replace(".", "\\.")}`) });
  for (const name of ["train.parquet", "test.parquet", "train.jsonl", "test.jsonl", "README.md", "manifest.json"]) await expect(fileLink(name)).toBeVisible();

  const get = async (name: string) => {
    const response = await page.request.get((await fileLink(name).getAttribute("href"))!);
    expect(response.status()).toBe(200);
    return response.body();
  };
  expect((await get("train.parquet")).subarray(0, 4).toString("latin1")).toBe("PAR1");
  const rows = (await get("train.jsonl"))
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { prompt: string; completions: string[]; labels: boolean[] });
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(typeof r.prompt).toBe("string");
    expect(r.labels).toHaveLength(r.completions.length);
    expect(r.labels.every((label) => typeof label === "boolean")).toBe(true);
  }
  const card = (await get("README.md")).toString("utf8");
  expect(card).toMatch(/^---\n/);
  expect(card).toContain(`  - split: train\n    path: "train.parquet"\n`);
  expect(card).toContain(`    num_examples: ${rows.length}\n`);
  expect(card).toContain("  - name: \"labels\"\n    list: bool\n");
  const manifest = JSON.parse((await get("manifest.json")).toString("utf8")) as { launch: { command: string; validation: string } };
  expect(manifest.launch.validation).toBe("off");
  expect(card).toContain(manifest.launch.command);
});
