import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { mutate, query } from "./trpc";
import { admin, signInAs } from "./users";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);
const suffix = Date.now().toString(36);
const DEMO_QUEUE = "Demo: least confident Monte-Carlo labels";

/** A model signal in a tRPC answer: a label, Q-value, verdict or confidence that is not null, or another annotator. */
const MODEL_SIGNAL = /"(mcLabel|qValue|judgeVotes|judgeVerdict|confidence)":(?!null)|Positive|Negative|rationale|demo-annotator-/;

test("blind review: the annotate screen and every answer behind it hide the model until submit; opting out needs a reason; adjudication shows names and the model's side", async ({ browser, page }) => {
  await signInAs(page, admin.email, admin.password);
  // The demo queue is made once the demo annotate run has finished (long done when the specs before this one have run).
  type Listed = { id: string; name: string; blind: boolean; datasetId: string };
  let demo: Listed | undefined;
  await expect(async () => {
    demo = (await query<Listed[]>(page.request, "annotationQueue.listQueues", {})).find((q) => q.name === DEMO_QUEUE);
    expect(demo).toBeDefined();
  }).toPass({ timeout: 150_000 });
  if (!demo) throw new Error("no demo queue");
  expect(demo.blind).toBe(true);

  // A new annotator joins the demo queue, whose last two items nobody has labelled yet.
  const annotator = { email: `blind-${suffix}@e2e.test`, name: `Reviewer ${suffix}`, role: "annotator", password: "blind-e2e-password" };
  const created = await mutate<{ id: string }>(page.request, "user.create", annotator);
  await mutate(page.request, "annotationQueue.addMembers", { queueId: demo.id, userIds: [created.id] });

  const context = await browser.newContext();
  const a = await context.newPage();
  const answers: string[] = [];
  a.on("response", async (response) => {
    if (response.url().includes("/api/trpc/")) answers.push(await response.text().catch(() => ""));
  });
  await signInAs(a, annotator.email, annotator.password);
  await a.goto(`/annotation-queues/${demo.id}/annotate`);
  const chunks = a.getByTestId("annotate-chunk");
  await expect(chunks.first()).toBeVisible();
  await expect(a.getByText("Blind queue: the model's labels and verdicts appear after you submit.")).toBeVisible();
  // Nothing of the model on screen, nor in any answer the page received.
  await expect(a.getByTestId("model-view")).toHaveCount(0);
  await expect(a.getByTestId("submitted-reveal")).toHaveCount(0);
  const screen = await a.getByTestId("annotate-page").innerText();
  expect(screen).not.toMatch(/\bMC\b|judge [+−?]|\bQ \d|Positive|Negative|Demo annotator/);
  expect(answers.length).toBeGreaterThan(0);
  for (const answer of answers) expect(answer).not.toMatch(MODEL_SIGNAL);
  await a.screenshot({ path: screenshot("annotation-blind.png"), fullPage: true });

  // Submitted, the model's labels are revealed beside the annotator's own.
  const count = await chunks.count();
  for (let i = 0; i < count; i++) await a.keyboard.press("3");
  await a.keyboard.press("Enter");
  const reveal = a.getByTestId("submitted-reveal");
  await expect(reveal).toBeVisible();
  await reveal.locator("summary").click();
  await expect(reveal.getByRole("row")).toHaveCount(count + 1);
  await expect(reveal.getByRole("cell", { name: /^(Positive|Negative)$/ }).first()).toBeVisible();
  await context.close();

  // The queue page explains its kappa, and says how the demo annotators were simulated.
  await page.goto(`/annotation-queues/${demo.id}`);
  await expect(page.getByTestId("blind-off-notice")).toHaveCount(0);
  const explanation = page.getByTestId("kappa-explanation");
  await expect(explanation).toContainText("Landis & Koch");
  await expect(explanation.getByTestId("kappa-band")).toContainText(/reads as (moderate|substantial)/);
  await expect(explanation.getByTestId("simulated-annotators")).toContainText("Demo annotator A 10 %, Demo annotator B 15 %");

  // Adjudicating a disputed item: full names (email on hover), and the Monte-Carlo and judge runs' view of each chunk.
  await page.getByTestId("disagreement-row").first().getByRole("link").click();
  const names = page.getByTestId("annotator-name");
  await expect(names.filter({ hasText: /^Demo annotator A$/ }).first()).toHaveAttribute("title", "demo-annotator-a@stepwiser.local");
  await expect(names.filter({ hasText: /^Demo annotator B$/ }).first()).toBeVisible();
  const chunkModel = page.getByTestId("chunk-model").first();
  await expect(chunkModel.getByTestId("chunk-mc")).toContainText(/MC abs-q.* [+−]/);
  await expect(chunkModel.getByTestId("chunk-q")).toContainText(/Q \d\.\d\d \(\d+\/\d+ rollouts correct\)/);
  // The queue's judge run, and the latest finished run of each judge endpoint once the demo's judges are done.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("chunk-model").first()).toBeVisible();
    expect(await page.getByTestId("model-judge-run").count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId("chunk-model").first().getByTestId("chunk-judge").count()).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 120_000 });
  await expect(page.getByTestId("model-judge-run").first()).toContainText("the queue's judge run");
  await page.screenshot({ path: screenshot("adjudication.png"), fullPage: true });

  // Opting out is an explicit choice: the new-queue form starts blind, and unchecking asks for a reason.
  await page.goto("/annotation-queues/new");
  const newBlind = page.getByRole("checkbox", { name: /^Blind: hide model labels/ });
  await expect(newBlind).toBeChecked();
  await newBlind.uncheck();
  await expect(page.getByRole("alertdialog", { name: "Turn blind review off?" }).getByRole("textbox")).toHaveAttribute("required", "");

  // In a queue's settings the same; the reason given, the queue's page shows who turned it off, when and why.
  const { queueId } = await mutate<{ queueId: string }>(page.request, "annotationQueue.createQueue", {
    name: `Blind opt-out ${suffix}`,
    datasetId: demo.datasetId,
    selection: { kind: "filter", filter: {}, limit: 1 },
  });
  await page.goto(`/annotation-queues/${queueId}`);
  const settings = page.locator("details", { has: page.locator("summary", { hasText: "Settings" }) });
  await settings.locator("summary").click();
  const blind = settings.getByRole("checkbox", { name: /^Blind: hide model labels/ });
  await expect(blind).toBeChecked();
  await blind.uncheck();
  const confirm = settings.getByRole("alertdialog", { name: "Turn blind review off?" });
  await expect(confirm).toBeVisible();
  // "Keep blind" takes it back; unchecked again, the reason is required: the browser holds the form back and the queue stays blind.
  await confirm.getByRole("button", { name: "Keep blind" }).click();
  await expect(blind).toBeChecked();
  await blind.uncheck();
  const reason = confirm.getByRole("textbox");
  await settings.getByRole("button", { name: "Save" }).click();
  expect(await reason.evaluate((el) => (el as HTMLTextAreaElement).validity.valueMissing)).toBe(true);
  expect((await query<{ blind: boolean }>(page.request, "annotationQueue.queue", { queueId })).blind).toBe(true);
  await reason.fill("calibration round: annotators learn what the judge looks for");
  await settings.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("blind-off-notice")).toHaveText(/^Not blind: annotators see model labels — turned off by .+ on \d{4}-\d{2}-\d{2}: calibration round: annotators learn what the judge looks for$/);
});
