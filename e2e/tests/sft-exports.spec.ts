import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { signIn } from "./sign-in";
import { mutate, query, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

/** Samples per problem of the generated dataset: more than the four a segmentation-sft export keeps of a problem. */
const SAMPLES = 8;

interface Message {
  role: "user" | "assistant";
  content: string;
}
interface SegmentationSftRow {
  messages: [Message, Message];
  problem_id: string;
  solution_id: string;
  original: string;
  correct: boolean | null;
}
interface SelectionRow {
  messages: [Message, Message];
  problem_id: string;
  solution_id: string;
  score: number;
  candidates: Array<{ solution_id: string; correct: boolean; score: number | null }>;
}
interface Manifest {
  kind: string;
  format: string;
  aggregate?: string;
  counts: { rows: number } & Record<string, number>;
  splits: Record<"train" | "test", { fileName: string; rows: number; problems: number }>;
}

/** Fills the SFT export panel of the run page open, exports, waits for the export to complete and returns its row in the panel. */
async function exportFromPanel(page: Page, fill: (panel: Locator) => Promise<void>): Promise<Locator> {
  const panel = page.getByTestId("sft-export-panel");
  await expect(panel.getByRole("heading", { name: "Export SFT set" })).toBeVisible();
  await expect(panel.getByTestId("sft-export-format")).toHaveValue("chat-jsonl");
  await fill(panel);
  await panel.getByTestId("sft-export-submit").click();
  await expect(panel.getByText("Queued; it appears in the list below.")).toBeVisible();
  const row = panel.getByTestId("sft-export-row").first();
  await expect(row).toHaveAttribute("data-status", "completed", { timeout: 45_000 });
  return row;
}

/** Downloads one of an export row's files through its link. */
async function download(page: Page, row: Locator, name: string): Promise<string> {
  const link = row.getByTestId("export-file-link").filter({ hasText: new RegExp(`^${name.replace(".", "\\.")}`) });
  await expect(link).toBeVisible();
  const response = await page.request.get((await link.getAttribute("href"))!);
  expect(response.status()).toBe(200);
  return (await response.body()).toString("utf8");
}

const jsonLines = <T>(text: string): T[] =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);

const untagged = (text: string) => text.replaceAll("<chunk>", "").replaceAll("</chunk>", "");

test("SFT exports from the run pages: a segmenter run's attempts and its self-segmentation set, a judge run's stepwise selection", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  const request = page.request;
  const datasets = await query<Array<{ id: string; name: string }>>(request, "dataset.list", undefined);
  const demoId = datasets.find((d) => d.name === "Simulated world (demo)")!.id;

  // A small dataset with several solutions per problem: the simulated policy, eight samples of three problems.
  const generate = await mutate<{ runId: string }>(request, "run.launch", {
    kind: "generate",
    name: "SFT e2e: generate",
    config: { datasetId: demoId, policyEndpoint: "sim-policy", samplesPerProblem: SAMPLES, limit: 3, filterMixed: false, outputDatasetName: "SFT exports e2e" },
  });
  await waitForRun(request, generate.runId);
  const generated = await query<{ summary: { outputDatasetId: string; solutions: number } }>(request, "run.get", { id: generate.runId });
  const datasetId = generated.summary.outputDatasetId;
  expect(generated.summary.solutions).toBe(3 * SAMPLES);

  // The simulated segmenter on every solution, and a judge on their self-segmentations, side by side.
  const segment = await mutate<{ runId: string }>(request, "run.launch", {
    kind: "segment",
    name: "SFT e2e: segmenter",
    config: { datasetId, method: "llm-segmenter", segmenterEndpoint: "sim-segmenter" },
  });
  const judge = await mutate<{ runId: string }>(request, "run.launch", {
    kind: "judge",
    name: "SFT e2e: judge",
    config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 1, segmentationMethod: "self-segmented" },
  });
  await waitForRun(request, segment.runId);
  await waitForRun(request, judge.runId);

  // The segment run's page shows the attempts: the limit, the requests, the solutions reconstructed per attempt.
  await page.goto(`/runs/${segment.runId}`);
  const results = page.getByTestId("results-segment");
  const attempts = results.getByTestId("segment-attempts");
  await expect(attempts.getByTestId("fact-Attempt limit")).toHaveText("8");
  await expect(attempts.getByTestId("fact-Segmenter requests")).toHaveText(/^\d+$/);
  await expect(attempts.getByTestId("segment-accepted-at").getByRole("row").nth(1)).toContainText("Attempt 1");

  // segmentation-sft from the panel, with its defaults: correct responses only, at most four per problem.
  const sftRow = await exportFromPanel(page, async (panel) => {
    await expect(panel.getByTestId("sft-export-max-per-problem")).toHaveValue("4");
    await expect(panel.getByTestId("sft-export-include-incorrect")).not.toBeChecked();
    await expect(panel.getByTestId("sft-export-aggregate")).toHaveCount(0);
  });
  await expect(sftRow).toContainText("self-segmentation SFT · chat-jsonl");
  const sftExportId = (await sftRow.getAttribute("data-run-id"))!;
  await expect(sftRow.getByTestId("export-sft-splits").locator('[data-split="train"]')).toBeVisible();
  await expect(sftRow.getByTestId("sft-export-counts")).toContainText("rows");
  for (const name of ["train.jsonl", "test.jsonl", "requirements.txt"]) await expect(sftRow.getByTestId("export-file-link").filter({ hasText: name })).toBeVisible();
  await page.screenshot({ path: screenshot("sft-export-segment.png"), fullPage: true });

  const card = await download(page, sftRow, "README.md");
  expect(card).toMatch(/^---\n/);
  expect(card).toMatch(/\ntags:\n(?:- .*\n)*?- "?self-segmentation"?\n/);
  expect(card).toContain("# StepWiser self-segmentation SFT");
  const manifest = JSON.parse(await download(page, sftRow, "manifest.json")) as Manifest;
  expect(manifest.kind).toBe("segmentation-sft");
  expect(manifest.format).toBe("chat-jsonl");
  expect(manifest.counts.rows).toBeGreaterThan(0);
  const rows = jsonLines<SegmentationSftRow>(await download(page, sftRow, "train.jsonl"));
  expect(rows).toHaveLength(manifest.splits.train.rows);
  expect(rows.length + manifest.splits.test.rows).toBe(manifest.counts.rows);
  const perProblem = new Map<string, number>();
  for (const row of rows) {
    perProblem.set(row.problem_id, (perProblem.get(row.problem_id) ?? 0) + 1);
    expect(row.correct).toBe(true);
    expect(row.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(row.messages[1].content).toContain("<chunk>");
    expect(untagged(row.messages[1].content)).toBe(row.original);
  }
  expect(Math.max(...perProblem.values())).toBeLessThanOrEqual(4);

  // The judge run's page: selection by the mean chunk score.
  await page.goto(`/runs/${judge.runId}`);
  const selectionRow = await exportFromPanel(page, async (panel) => {
    await expect(panel.getByTestId("sft-export-max-per-problem")).toHaveCount(0);
    await panel.getByTestId("sft-export-aggregate").selectOption("mean");
    await expect(panel.getByTestId("sft-export-baseline")).not.toBeChecked();
  });
  await expect(selectionRow).toContainText("stepwise selection · mean chunk score · chat-jsonl");
  const selectionExportId = (await selectionRow.getAttribute("data-run-id"))!;
  const selectionCard = await download(page, selectionRow, "README.md");
  expect(selectionCard).toMatch(/\ntags:\n(?:- .*\n)*?- "?rejection-sampling"?\n/);
  const selection = JSON.parse(await download(page, selectionRow, "manifest.json")) as Manifest;
  expect(selection.kind).toBe("selection");
  expect(selection.aggregate).toBe("mean");
  expect(selection.counts.rows).toBeGreaterThan(0);
  const selected = jsonLines<SelectionRow>(await download(page, selectionRow, "train.jsonl"));
  // Held out: none by default, so every selected response trains.
  expect(selected).toHaveLength(selection.counts.rows);
  expect(new Set(selected.map((r) => r.problem_id)).size).toBe(selected.length);
  for (const row of selected) {
    const competing = row.candidates.filter((c) => c.correct && c.score !== null);
    const best = Math.max(...competing.map((c) => c.score!));
    expect(row.score).toBe(best);
    // The correct candidate with the highest score, ties to the earliest.
    expect(row.solution_id).toBe(competing.find((c) => c.score === best)!.solution_id);
    expect(row.messages[1].content).toContain("<chunk>");
  }

  // The Exports page lists both with their splits.
  await page.goto("/exports");
  for (const id of [sftExportId, selectionExportId]) {
    const listed = page.locator(`[data-testid="export-row"][data-run-id="${id}"]`);
    await expect(listed.getByTestId("export-sft-splits").locator('[data-split="train"]')).toBeVisible();
  }
  await expect(page.getByTestId("export-row").filter({ hasText: "self-segmentation SFT · chat-jsonl" })).toHaveCount(1);
  await expect(page.getByTestId("export-row").filter({ hasText: "stepwise selection · mean chunk score · chat-jsonl" })).toHaveCount(1);
});
