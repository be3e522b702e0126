import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";
import { mutate, query, waitForRun } from "./trpc";

test("endpoints declare the judge protocols they speak, and the launch form offers each kind its protocols with their settings", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);

  // The Endpoints page lists what each simulated judge speaks.
  await page.goto("/endpoints");
  const row = (name: string) => page.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: true }) });
  await expect(row("sim-thinkprm").getByRole("list", { name: "judge protocols" })).toHaveText("ThinkPRM");
  await expect(row("sim-outcome-rm").getByRole("list", { name: "judge protocols" }).getByRole("listitem")).toHaveText([
    "Outcome reward model (pointwise)",
    "Outcome reward model (pairwise knockout)",
  ]);
  await expect(row("sim-judge-strong").getByRole("list", { name: "judge protocols" }).getByRole("listitem")).toHaveText(["StepWiser chunk judge", "ProcessBench critic"]);

  // Editing shows each protocol with what it needs from the server; a changed list is saved and listed.
  await row("sim-math-prm").getByRole("button", { name: "Edit" }).click();
  const form = page.locator("form").filter({ hasText: "Edit sim-math-prm" });
  const prm = form.getByRole("checkbox", { name: /^Discriminative PRM/ });
  await expect(prm).toBeChecked();
  await expect(form.getByRole("checkbox", { name: /^ThinkPRM/ })).not.toBeChecked();
  await expect(form.getByText("needs vLLM pooling runner (--runner pooling, POST /pooling)")).toBeVisible();
  await expect(form.getByText("needs chat completions with logprobs (top_logprobs)").first()).toBeVisible();
  // Unchecking every protocol is refused, naming the field.
  await prm.uncheck();
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(form.getByRole("alert")).toContainText("Judge protocols: needs at least one protocol the server speaks");
  await prm.check();
  await form.getByRole("checkbox", { name: /^Outcome reward model \(pointwise\)/ }).check();
  // The server kind: detected from the model list unless set; set here, it is saved and listed.
  const server = form.getByRole("combobox", { name: "Server" });
  await expect(server).toHaveValue("auto");
  await server.selectOption("sglang");
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(form).toHaveCount(0);
  await expect(row("sim-math-prm").getByRole("list", { name: "judge protocols" }).getByRole("listitem")).toHaveText(["Discriminative PRM", "Outcome reward model (pointwise)"]);
  await expect(row("sim-math-prm").getByRole("cell", { name: "SGLang", exact: true })).toBeVisible();
  await expect(row("sim-thinkprm").getByRole("cell", { name: "detect", exact: true })).toBeVisible();

  // The launch form: a judge run offers the protocols that judge every chunk, and warns when the judge endpoint does not declare the chosen one.
  await page.goto("/runs/new?kind=judge");
  const launch = page.getByRole("form", { name: "Launch a run" });
  const protocol = launch.getByRole("combobox", { name: "Protocol", exact: true });
  await expect(protocol).toHaveValue("stepwiser-chunk");
  await expect(protocol.locator("option")).toHaveCount(4);
  await expect(protocol.locator("option", { hasText: "ThinkPRM (thinkprm@v2)" })).toHaveCount(1);
  // Picked before the endpoint, a protocol the endpoint does not declare is kept, marked, and refused once, beside the select.
  await protocol.selectOption("thinkprm");
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-judge-strong");
  const errors = launch.getByTestId("field-error");
  await expect(errors).toHaveCount(1);
  await expect(errors).toContainText('The endpoint "sim-judge-strong" does not declare ThinkPRM (thinkprm); it speaks: StepWiser chunk judge, ProcessBench critic.');
  await expect(protocol.locator("option")).toHaveText(["StepWiser chunk judge (stepwiser-chunk@v1)", "ThinkPRM (thinkprm@v2) — not declared by sim-judge-strong"]);
  // Otherwise the select offers what the chosen endpoint declares.
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-thinkprm");
  await expect(errors).toHaveCount(0);
  await expect(protocol.locator("option")).toHaveText(["ThinkPRM (thinkprm@v2)"]);

  // A discriminative PRM asks for its threshold and variant; GenPRM for code execution, off by default, with its limits once on.
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-math-prm");
  await protocol.selectOption("discriminative-prm");
  await expect(launch.getByRole("spinbutton", { name: "Threshold" })).toHaveValue("0.5");
  await expect(launch.getByRole("combobox", { name: "PRM variant" })).toHaveValue("qwen2.5-math-prm");
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-genprm");
  await protocol.selectOption("genprm");
  await expect(launch.getByRole("spinbutton", { name: "Threshold" })).toHaveCount(0);
  const execute = launch.getByRole("checkbox", { name: "Execute code blocks in a sandbox" });
  await expect(execute).not.toBeChecked();
  await expect(launch.getByRole("spinbutton", { name: "Sandbox memory (MB)" })).toHaveCount(0);
  await execute.check();
  await expect(launch.getByText(/^Warning: the python blocks the judge writes are executed on the worker/)).toBeVisible();
  await expect(launch.getByRole("spinbutton", { name: "Sandbox time limit (ms)" })).toHaveValue("5000");
  await expect(launch.getByRole("spinbutton", { name: "Sandbox memory (MB)" })).toHaveValue("512");

  // Chunk-reset offers only the protocols that judge chunk by chunk; a benchmark keeps the critic's template with the critic only.
  await launch.getByLabel("Run kind").selectOption("chunk_reset");
  await expect(protocol.locator("option")).toHaveText([
    "StepWiser chunk judge (stepwiser-chunk@v1)",
    "ThinkPRM (thinkprm@v2)",
    "GenPRM (genprm@v2)",
    "Discriminative PRM (discriminative-prm@v1)",
  ]);
  await launch.getByLabel("Run kind").selectOption("benchmark");
  await expect(protocol.locator("option")).toHaveCount(5);
  await expect(launch.locator("#run-field-criticPromptTemplateId")).toHaveCount(0);
  await protocol.selectOption("processbench-critic");
  await expect(launch.locator("#run-field-criticPromptTemplateId")).toHaveValue("processbench-critic@v2");
});

test("a critic benchmark with Maj@4 shows its outputs counted and every sample's vote in the inspector; the launch form fills the paper's label rules", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  const request = page.request;
  const datasets = await query<Array<{ id: string; name: string }>>(request, "dataset.list", undefined);
  const datasetId = datasets.find((d) => d.name === "Simulated world (demo)")!.id;
  const launched = await mutate<{ runId: string }>(request, "run.launch", {
    kind: "benchmark",
    name: "Critic Maj@4",
    config: { datasetId, judgeEndpoint: "sim-judge-strong", protocol: "processbench-critic", samples: 4, segmentationMethod: "self-segmented", limit: 4, bootstrap: { resamples: 200 } },
  });
  await waitForRun(request, launched.runId, 120_000);

  // The results name the template and count the judge's outputs, cut ones apart.
  await page.goto(`/runs/${launched.runId}`);
  const results = page.getByTestId("results-benchmark");
  await expect(results.getByTestId("fact-Prompt template")).toHaveText("processbench-critic@v2");
  await expect(results.getByTestId("fact-Judge outputs")).toHaveText("16");
  await expect(results).toContainText("0 truncated (hit the generation limit)");

  // The inspector lists the critic's four samples with what each voted.
  const solutions = await query<{ items: Array<{ id: string }> }>(request, "solution.list", { datasetId, pageSize: 50 });
  let shown = false;
  for (const { id } of solutions.items) {
    await page.goto(`/solutions/${id}`);
    await expect(page.getByRole("heading", { name: "Problem" })).toBeVisible();
    const judgement = page.getByTestId("solution-judgement").filter({ hasText: "Critic Maj@4" });
    if ((await judgement.count()) === 0) continue;
    await expect(judgement).toContainText("processbench-critic · processbench-critic@v2");
    await expect(judgement).toContainText("(most common answer)");
    await judgement.getByRole("button").click();
    await expect(judgement.getByTestId("solution-sample")).toHaveCount(4);
    await expect(judgement.getByTestId("solution-sample").first()).toContainText(/#0(first error at step \d+|no error \(-1\)|unparseable)/);
    shown = true;
    break;
  }
  expect(shown).toBe(true);

  // The launch form's paper preset writes the 7B policy's label rules.
  await page.goto("/runs/new?kind=annotate");
  const launch = page.getByRole("form", { name: "Launch a run" });
  const rows = launch.getByTestId("label-rule-row");
  await launch.getByRole("button", { name: "Remove rule 3" }).click();
  await expect(rows).toHaveCount(2);
  await launch.getByRole("button", { name: "Paper, 1.5B policy (γ 0.8, α 0.4)" }).click();
  await expect(launch.locator("#run-field-labelRules-1-gamma")).toHaveValue("0.8");
  await launch.getByRole("button", { name: "Paper, 7B policy (γ 0.7, α 0.8)" }).click();
  await expect(rows).toHaveCount(3);
  await expect(launch.locator("#run-field-labelRules-0-rule")).toHaveValue("abs-q");
  await expect(launch.locator("#run-field-labelRules-0-evidence")).toHaveValue("own-prefix");
  await expect(launch.locator("#run-field-labelRules-1-gamma")).toHaveValue("0.7");
  await expect(launch.locator("#run-field-labelRules-2-alpha")).toHaveValue("0.8");
  await expect(launch.locator("#run-field-labelRules-2-n")).toHaveValue("4");
});
