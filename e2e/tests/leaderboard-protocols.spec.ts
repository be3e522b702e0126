import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";
import { mutate, query, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Three judge families benchmarked on the demo's simulated world through the same
 * durable runs (ThinkPRM, GenPRM and a discriminative PRM, each served by its simulated
 * model), then put side by side on Compare: one leaderboard with each run's protocol and
 * interval, and the published ProcessBench figures apart as a reference.
 */
test("the comparison page ranks benchmark runs of three judge protocols with intervals, the published figures apart", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  const request = page.request;
  const datasets = await query<Array<{ id: string; name: string }>>(request, "dataset.list", undefined);
  const datasetId = datasets.find((d) => d.name === "Simulated world (demo)")!.id;
  const protocols = [
    { protocol: "thinkprm", judgeEndpoint: "sim-thinkprm", label: "ThinkPRM", ref: "thinkprm@v2" },
    { protocol: "genprm", judgeEndpoint: "sim-genprm", label: "GenPRM", ref: "genprm@v2" },
    { protocol: "discriminative-prm", judgeEndpoint: "sim-math-prm", label: "Discriminative PRM", ref: "discriminative-prm@v1" },
  ];
  const runIds: string[] = [];
  for (const { protocol, judgeEndpoint, label } of protocols) {
    const launched = await mutate<{ runId: string }>(request, "run.launch", {
      kind: "benchmark",
      name: `Leaderboard: ${label}`,
      config: { datasetId, judgeEndpoint, protocol, segmentationMethod: "self-segmented", bootstrap: { resamples: 200 } },
    });
    runIds.push(launched.runId);
  }
  for (const runId of runIds) await waitForRun(request, runId, 180_000);

  await page.goto(`/compare?dataset=${datasetId}&runs=${runIds.join(",")}&baseline=${runIds[0]}&tab=metrics`);
  const rows = page.getByTestId("leaderboard-row");
  await expect(rows).toHaveCount(3, { timeout: 30_000 });
  for (const [i, { ref, label }] of protocols.entries()) {
    const row = page.locator(`[data-testid="leaderboard-row"][data-run="${runIds[i]}"]`);
    await expect(row.getByTestId("leaderboard-protocol")).toHaveAttribute("data-protocol", ref);
    await expect(row.getByTestId("leaderboard-protocol")).toContainText(label);
    // Each measured row has its bootstrap interval.
    await expect(row).toContainText(/\[\d+(\.\d+)?, \d+(\.\d+)?\]/);
  }
  const ranked = await rows.evaluateAll((all) => all.map((row) => Number(row.getAttribute("data-value"))));
  expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
  // The per-subset table gives every run its interval too.
  for (const runId of runIds) {
    await expect(page.locator(`[data-testid="metric-cell"][data-run="${runId}"][data-metric="f1"]`).first().getByTestId("metric-ci")).toHaveText(/\[\d/);
  }
  const reference = page.getByTestId("published-reference");
  await expect(reference.getByRole("heading", { name: "Published (reference) — not measured here" })).toBeVisible();
  await expect(reference.locator('[data-testid="published-row"][data-model="GenPRM-7B"]')).toContainText("75.2");
  await expect(reference.locator('[data-testid="published-row"][data-model="Qwen2.5-Math-PRM-7B"]')).toContainText("73.5");
  await expect(reference.locator('[data-testid="published-row"][data-model="GenPRM-7B"]').getByTestId("published-source")).toHaveText("GenPRM paper (Zhao et al., arXiv 2504.00891), Table 1");
  await expect(reference.getByTestId("published-caveat")).toContainText("Sources: StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5; GenPRM paper (Zhao et al., arXiv 2504.00891), Table 1.");
  await page.screenshot({ path: path.join(repoRoot, "e2e/screenshots", "leaderboard-protocols.png"), fullPage: true });
});
