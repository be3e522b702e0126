import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

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
  await form.getByRole("button", { name: "Save changes" }).click();
  await expect(form).toHaveCount(0);
  await expect(row("sim-math-prm").getByRole("list", { name: "judge protocols" }).getByRole("listitem")).toHaveText(["Discriminative PRM", "Outcome reward model (pointwise)"]);

  // The launch form: a judge run offers the protocols that judge every chunk, and warns when the judge endpoint does not declare the chosen one.
  await page.goto("/runs/new?kind=judge");
  const launch = page.getByRole("form", { name: "Launch a run" });
  const protocol = launch.getByRole("combobox", { name: "Protocol", exact: true });
  await expect(protocol).toHaveValue("stepwiser-chunk");
  await expect(protocol.locator("option")).toHaveCount(4);
  await expect(protocol.locator("option", { hasText: "ThinkPRM (thinkprm@v2)" })).toHaveCount(1);
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-judge-strong");
  const warning = launch.getByRole("alert");
  await expect(warning).toHaveCount(0);
  await protocol.selectOption("thinkprm");
  await expect(warning).toContainText('The endpoint "sim-judge-strong" does not declare ThinkPRM (thinkprm); it speaks: StepWiser chunk judge, ProcessBench critic.');
  await launch.locator("#run-field-judgeEndpoint").selectOption("sim-thinkprm");
  await expect(warning).toHaveCount(0);

  // A discriminative PRM asks for its threshold and variant; GenPRM for code execution, off by default, with its limits once on.
  await protocol.selectOption("discriminative-prm");
  await expect(launch.getByRole("spinbutton", { name: "Threshold" })).toHaveValue("0.5");
  await expect(launch.getByRole("combobox", { name: "PRM variant" })).toHaveValue("qwen2.5-math-prm");
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
