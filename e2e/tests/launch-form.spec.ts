import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { openAdvanced } from "./launch-run";
import { signIn } from "./sign-in";
import { query } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);

interface KindCase {
  kind: string;
  /** What makes the configuration launchable (selects by value, inputs by text). */
  valid: Record<string, string>;
  /** One mistake (fields set in order), the id of the one error it shows, and how it is put right. */
  invalid: { set: Array<[string, string]>; error: string; fix: Array<[string, string]> };
  /** Whether the panel shows a plan (annotate, judge, benchmark) or says it has none. */
  estimated: boolean;
}

const mistake = (field: string, value: string, fix: string) => ({ set: [[field, value]] as Array<[string, string]>, error: `run-field-${field}-error`, fix: [[field, fix]] as Array<[string, string]> });

const CASES: KindCase[] = [
  { kind: "annotate", valid: { policyEndpoint: "sim-policy", rollouts: "4", limit: "6" }, invalid: mistake("rollouts", "0", "4"), estimated: true },
  { kind: "generate", valid: { policyEndpoint: "sim-policy", limit: "2" }, invalid: mistake("samplesPerProblem", "0", "4"), estimated: false },
  { kind: "segment", valid: { method: "blank-line" }, invalid: mistake("limit", "0", "3"), estimated: false },
  // A protocol picked first, then a judge endpoint that does not declare it: refused once, beside the protocol select.
  {
    kind: "judge",
    valid: { samples: "2", limit: "4" },
    invalid: { set: [["protocol", "thinkprm"], ["judgeEndpoint", "sim-judge-strong"]], error: "run-protocol-error", fix: [["protocol", "stepwiser-chunk"]] },
    estimated: true,
  },
  { kind: "benchmark", valid: { judgeEndpoint: "sim-judge-strong", segmentationMethod: "self-segmented", samples: "1" }, invalid: mistake("samples", "0", "1"), estimated: true },
  { kind: "chunk_reset", valid: { policyEndpoint: "sim-policy", judgeEndpoint: "sim-judge-strong", limit: "2" }, invalid: mistake("judgeSamples", "0", "1"), estimated: false },
  { kind: "best_of_n", valid: { judgeEndpoint: "sim-judge-strong", limit: "2" }, invalid: mistake("samples", "0", "1"), estimated: false },
];

async function setField(form: Locator, name: string, value: string) {
  const control = form.locator(`#run-field-${name}`);
  if ((await control.evaluate((e) => e.tagName)) === "SELECT") await control.selectOption(value);
  else await control.fill(value);
}

/** Every labelled control of the form whose label is missing, looks like a configuration key, or has no help beside it. */
function badLabels(form: Locator) {
  return form.evaluate((root) =>
    Array.from(root.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('[id^="run-field-"]'))
      .filter((control) => /^run-field-[A-Za-z]+$/.test(control.id) && control.id !== "run-field-protocol")
      .flatMap((control) => {
        const label = control.labels?.[0]?.querySelector("span")?.textContent?.trim() ?? "";
        const help = document.getElementById(`${control.id}-help`)?.textContent?.trim() ?? "";
        const key = control.id.slice("run-field-".length);
        return !label || label === key || /(^|\s)[a-z]+[A-Z]\w*/.test(label) || !help ? [`${key}: "${label}" / "${help.slice(0, 30)}"`] : [];
      }),
  );
}

async function demoDatasetId(page: Page): Promise<string> {
  const datasets = await query<Array<{ id: string; name: string }>>(page.request, "dataset.list", undefined);
  return datasets.find((d) => d.name === "Simulated world (demo)")!.id;
}

test("the launch form labels and explains every field, estimates the run, shows one error per field and launches only a valid config", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page);
  const datasetId = await demoDatasetId(page);
  for (const c of CASES) {
    await page.goto(`/runs/new?kind=${c.kind}&datasetId=${datasetId}`);
    const form = page.getByRole("form", { name: "Launch a run" });
    const launch = form.getByRole("button", { name: "Launch run" });
    await expect(form.locator("#run-field-datasetId")).toHaveValue(datasetId);
    await openAdvanced(form);
    expect(await badLabels(form), c.kind).toEqual([]);
    for (const [name, value] of Object.entries(c.valid)) await setField(form, name, value);

    // One mistake: one error, at its field; Launch stays disabled until it is put right.
    for (const [name, value] of c.invalid.set) await setField(form, name, value);
    const errors = form.getByTestId("field-error");
    await expect(errors, c.kind).toHaveCount(1);
    await expect(form.locator(`#${c.invalid.error}`)).toBeVisible();
    await expect(launch).toBeDisabled();
    for (const [name, value] of c.invalid.fix) await setField(form, name, value);
    await expect(errors).toHaveCount(0);
    await expect(launch, c.kind).toBeEnabled({ timeout: 10_000 });

    const panel = form.getByTestId("plan-estimate");
    if (!c.estimated) {
      await expect(panel.getByTestId("plan-unavailable")).toHaveText("no estimate for this kind");
      continue;
    }
    await expect(panel.getByTestId("plan-requests")).toHaveText(/^(≤ )?[\d,]*[1-9][\d,]*$/);
    await expect(panel.getByTestId("plan-generatedTokens")).toHaveText(/\d/);
    // Hours at the endpoint's rate measured over its finished runs (the demo's, once they have finished), or a request for a figure.
    await expect(panel.getByTestId("plan-hours")).toHaveText(/^(no measured throughput: type a tokens\/s figure|(≤ )?\S+ \S+ at [\d,]+ tokens\/s \(measured: its latest (finished run|\d finished runs), wall time\))$/);
    if (c.kind === "annotate") {
      await panel.getByLabel("Generated tokens per second").fill("2000");
      await expect(panel.getByTestId("plan-hours")).toHaveText(/ at 2,000 tokens\/s \(typed\)$/);
      // The panel's requests are the plan service's for the same configuration (`stepwiser plan annotate`'s model).
      const plan = await query<{ requests: number }>(page.request, "run.plan", { kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 4, limit: 6 } });
      await expect(panel.getByTestId("plan-requests")).toHaveText(plan.requests.toLocaleString("en"));
      await form.getByTestId("advanced-fields").locator("summary").click(); // the guided form as it first shows
      await page.screenshot({ path: screenshot("launch-form-annotate.png"), fullPage: true });
    } else {
      await expect(panel.getByTestId("plan-assumptions")).toContainText("requests: chunks × samples (K = ");
    }
  }
});
