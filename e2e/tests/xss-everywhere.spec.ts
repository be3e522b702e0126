import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { signIn } from "./sign-in";
import { mutate, query, signInRequest, upload, waitForRun, APP_ORIGIN } from "./trpc";
import { expectOnlyText, fileNamePayload, injectedMarkup, longPayload, marker, shortPayload, watchForAttacks } from "./xss-payloads";

/**
 * Every field of model output and every name a person types carries hostile
 * markup; every page that shows one is visited in Chromium. Model text that the
 * simulated cluster cannot be made to write (it only solves its own arithmetic
 * problems) comes in the way real model output does too: an imported file, and
 * `vllm run-batch` output files answering an offline annotate run (rollouts)
 * and two offline judge runs (rationales).
 */

const PAYLOADS = { long: longPayload, short: shortPayload, fileName: fileNamePayload };

/** Every untrusted field, and whether it takes long text, a name of at most 100 characters, or a file name. */
const FIELDS = {
  datasetName: "short",
  problem: "long",
  solutionStep: "long",
  referenceAnswer: "short",
  generator: "short",
  subset: "short",
  recordId: "short",
  rollout: "long",
  judgeRationale: "long",
  otherJudgeRationale: "long",
  queueName: "short",
  queueInstructions: "long",
  runName: "short",
  runNotes: "long",
  annotationNote: "long",
  endpointName: "short",
  tokenName: "short",
  userName: "short",
  uploadFileName: "fileName",
  /** A record id quoted in the reason a skip import lists for a record it left out. */
  importReason: "short",
} as const satisfies Record<string, keyof typeof PAYLOADS>;
type Field = keyof typeof FIELDS;

const text = Object.fromEntries(Object.entries(FIELDS).map(([field, size]) => [field, PAYLOADS[size](field)])) as Record<Field, string>;

interface Seeded {
  datasetId: string;
  solutionId: string;
  annotateRunId: string;
  judgeRunId: string;
  otherJudgeRunId: string;
  hostileEndpointRunId: string;
  /** A stored file holding hostile text: the annotate run's exported prompts. */
  promptsFileId: string;
  /** A skip import whose report lists a record with hostile text in its reason. */
  skipImportRunId: string;
  queueId: string;
  itemId: string;
}

/** Every page that shows untrusted text: what it must show as text, and how to make it show it. */
const PAGES: Array<{ name: string; path: (s: Seeded) => string; shows: Field[]; reveal?: (page: Page) => Promise<void> }> = [
  { name: "datasets list", path: () => "/datasets", shows: ["datasetName"] },
  {
    name: "recent imports",
    path: () => "/datasets",
    shows: ["uploadFileName", "datasetName"],
    reveal: async (page) => {
      await page.getByText("Recent imports").click();
    },
  },
  { name: "solutions list", path: (s) => `/datasets/${s.datasetId}`, shows: ["datasetName", "recordId", "generator", "subset"] },
  { name: "solutions list with run columns", path: (s) => `/datasets/${s.datasetId}?annotateRunId=${s.annotateRunId}&judgeRunId=${s.judgeRunId}`, shows: ["datasetName", "recordId"] },
  { name: "dataset overview", path: (s) => `/datasets/${s.datasetId}/overview`, shows: ["datasetName"] },
  { name: "dataset runs", path: (s) => `/datasets/${s.datasetId}/runs`, shows: ["datasetName", "runName"] },
  { name: "runs page", path: (s) => `/runs?dataset=${s.datasetId}`, shows: ["datasetName", "runName"] },
  {
    name: "inspector with rationales and rollouts",
    path: (s) => `/solutions/${s.solutionId}`,
    shows: ["datasetName", "problem", "solutionStep", "referenceAnswer", "generator", "subset", "recordId", "judgeRationale", "rollout"],
    reveal: async (page) => {
      const cells = page.getByTestId("judge-cell");
      await expect(cells.first()).toBeVisible();
      for (const cell of await cells.all()) await cell.getByRole("button").first().click();
      await page.getByRole("button", { name: "rollouts" }).first().click();
      await expect(page.getByRole("region", { name: "Rollouts" }).getByRole("listitem").first()).toBeVisible();
    },
  },
  {
    name: "inspector, raw text",
    path: (s) => `/solutions/${s.solutionId}`,
    shows: ["problem", "solutionStep"],
    reveal: async (page) => {
      await page.getByRole("group", { name: "Text display" }).getByRole("button", { name: "Raw" }).click();
    },
  },
  { name: "annotate run page", path: (s) => `/runs/${s.annotateRunId}`, shows: [] },
  { name: "import run page with its report", path: (s) => `/runs/${s.skipImportRunId}`, shows: ["importReason"] },
  { name: "judge run page", path: (s) => `/runs/${s.judgeRunId}`, shows: ["runName", "runNotes"] },
  {
    name: "page of a run on the hostile endpoint",
    path: (s) => `/runs/${s.hostileEndpointRunId}`,
    shows: ["endpointName"],
    reveal: async (page) => {
      await page.getByText("Configuration snapshot").click();
    },
  },
  { name: "launch form", path: (s) => `/runs/new?datasetId=${s.datasetId}`, shows: ["datasetName"] },
  { name: "annotation-queues list", path: () => "/annotation-queues", shows: ["queueName"] },
  { name: "queue page", path: (s) => `/annotation-queues/${s.queueId}`, shows: ["queueName", "queueInstructions", "userName"] },
  { name: "annotate page", path: (s) => `/annotation-queues/${s.queueId}/annotate`, shows: ["queueName", "queueInstructions", "problem", "solutionStep"] },
  { name: "queue item with labels", path: (s) => `/annotation-queues/${s.queueId}/items/${s.itemId}`, shows: ["queueName", "recordId", "solutionStep", "annotationNote", "userName"] },
  { name: "new queue form", path: (s) => `/annotation-queues/new?dataset=${s.datasetId}`, shows: ["datasetName"] },
  ...(["metrics", "scaling", "calibration"] as const).map((tab) => ({
    name: `compare ${tab}`,
    path: (s: Seeded) => `/compare?dataset=${s.datasetId}&runs=${s.judgeRunId},${s.otherJudgeRunId}&baseline=${s.otherJudgeRunId}&tab=${tab}`,
    shows: ["datasetName", "runName"] satisfies Field[],
  })),
  {
    name: "compare disagreements",
    path: (s) => `/compare?dataset=${s.datasetId}&runs=${s.judgeRunId},${s.otherJudgeRunId}&tab=disagreements&a=${s.judgeRunId}&b=${s.otherJudgeRunId}`,
    shows: ["recordId"],
  },
  {
    name: "compare item",
    path: (s) => `/compare?dataset=${s.datasetId}&runs=${s.judgeRunId},${s.otherJudgeRunId}&tab=disagreements&a=${s.judgeRunId}&b=${s.otherJudgeRunId}`,
    shows: ["problem", "solutionStep", "judgeRationale", "otherJudgeRationale"],
    reveal: async (page) => {
      await page.getByTestId("disagreement-link").first().click();
      await expect(page).toHaveURL(/\/compare\/item\?/);
      await expect(page.getByTestId("item-judgement").first()).toBeVisible();
    },
  },
  {
    name: "compare three-way",
    path: (s) => `/compare?dataset=${s.datasetId}&tab=three-way&judge=${s.judgeRunId}&annotate=${s.annotateRunId}&queue=${s.queueId}`,
    shows: ["queueName"],
  },
  { name: "exports", path: () => "/exports", shows: ["datasetName"] },
  { name: "endpoints", path: () => "/endpoints", shows: ["endpointName"] },
  { name: "API tokens", path: () => "/settings/tokens", shows: ["tokenName"] },
  { name: "users", path: () => "/admin/users", shows: ["userName"] },
  // The queue was created last among the seeded names: its audit entry is on the first page, its name in the fields it set.
  { name: "audit log", path: () => "/admin/audit", shows: ["queueName"] },
];

const suffix = Date.now().toString(36);
const annotator = { email: `xss-${suffix}@e2e.test`, password: "xss-e2e-password" };

/**
 * Answers an offline run's exported batch requests with `answer(customId, sampleIndex)` as every sample's text.
 * Returns the id of the exported requests file (the prompts, hostile problem and chunks included).
 */
async function answerOffline(request: APIRequestContext, runId: string, answer: (customId: string, sample: number) => string): Promise<string> {
  const exportRun = await mutate<{ runId: string }>(request, "export.start", { spec: { kind: "batch-requests", runId } });
  await waitForRun(request, exportRun.runId);
  const [exported] = await query<Array<{ id: string; files: Array<{ id: string }> }>>(request, "export.list", { sourceRunId: runId, limit: 1 });
  const requestsFileId = exported!.files[0]!.id;
  const requests = (await (await request.get(`/api/files/${requestsFileId}`)).text()).trim().split("\n");
  const output = requests.map((line, i) => {
    const customId = (JSON.parse(line) as { custom_id: string }).custom_id;
    const [first, last] = customId.split(":").pop()!.split("-").map(Number) as [number, number];
    const choices = Array.from({ length: last - first + 1 }, (_, k) => ({ index: k, message: { role: "assistant", content: answer(customId, first + k) }, finish_reason: "stop" }));
    return JSON.stringify({ id: `batch-${i}`, custom_id: customId, response: { status_code: 200, request_id: `req-${i}`, body: { choices, usage: { prompt_tokens: 50, completion_tokens: 80 } } }, error: null });
  });
  const fileId = await upload(request, `${runId}-output.jsonl`, `${output.join("\n")}\n`);
  const importRun = await mutate<{ runId: string }>(request, "import.startBatchOutput", { fileId, runId });
  await waitForRun(request, importRun.runId);
  await waitForRun(request, runId);
  return requestsFileId;
}

/** Chunk index of a judge batch request (`judge:<run>:<segmentation>:<chunk>:<samples>`). */
const chunkOf = (customId: string) => Number(customId.split(":")[3]);

async function seed(request: APIRequestContext, annotatorRequest: APIRequestContext): Promise<Seeded> {
  await mutate(request, "user.create", { ...annotator, name: text.userName, role: "researcher" });
  await signInRequest(annotatorRequest, annotator.email, annotator.password);
  await mutate(request, "endpoint.create", { name: text.endpointName, baseUrls: [`http://127.0.0.1:9/v1`], model: "hostile-model", role: "judge", maxConcurrency: 1 });
  await mutate(request, "token.create", { name: text.tokenName });

  // The source's first error at the last step: judges that disagree about it show up in the comparison.
  const record = (id: string, lastStep: string) => ({
    first_error: 1,
    uid: id,
    question: text.problem,
    steps: [text.solutionStep, lastStep],
    gold: text.referenceAnswer,
    model: text.generator,
    split: text.subset,
  });
  const jsonl = [record(text.recordId, "So the answer is $\\frac{4}{2} = 2$."), record("xss-plain-record", "Hence the answer is 2.")].map((r) => JSON.stringify(r)).join("\n");
  const fileId = await upload(request, text.uploadFileName, `${jsonl}\n`);
  const mapping = { problem: "question", steps: "steps", answer: "gold", id: "uid", generator: "model", subset: "split", firstError: "first_error" };
  const importRun = await mutate<{ runId: string }>(request, "import.start", { fileId, options: { format: "jsonl", datasetName: text.datasetName, mapping } });
  const { datasetId } = await waitForRun(request, importRun.runId);
  // The same id twice: a skip import leaves the second record out, quoting the id in its reason.
  const twice = [0, 1, 2, 3].map((i) => JSON.stringify({ uid: i < 2 ? text.importReason : `plain-${i}`, question: `What is ${i}?`, steps: [`${i}`] })).join("\n");
  const skipFileId = await upload(request, "xss-skip.jsonl", `${twice}\n`);
  const skipImport = await mutate<{ runId: string }>(request, "import.start", {
    fileId: skipFileId,
    options: { format: "jsonl", mapping: { problem: "question", steps: "steps", id: "uid" }, onInvalid: "skip", maxInvalidShare: 0.5 },
  });
  await waitForRun(request, skipImport.runId);
  const solutions = await query<{ items: Array<{ id: string; externalId: string }> }>(request, "solution.list", { datasetId: datasetId! });
  const solutionId = solutions.items.find((r) => r.externalId === text.recordId)!.id;

  const common = { datasetId, segmentationMethod: "source-steps" };
  const annotate = await mutate<{ runId: string }>(request, "run.launch", { kind: "annotate", offline: true, config: { ...common, policyEndpoint: "sim-policy", rollouts: 2 } });
  const promptsFileId = await answerOffline(request, annotate.runId, () => text.rollout);
  const judge = await mutate<{ runId: string }>(request, "run.launch", {
    kind: "judge",
    offline: true,
    config: { ...common, judgeEndpoint: "sim-judge-strong" },
    name: text.runName,
    notes: text.runNotes,
  });
  await answerOffline(request, judge.runId, () => `${text.judgeRationale}\n\nVerdict: \\boxed{Positive}`);
  const otherJudge = await mutate<{ runId: string }>(request, "run.launch", { kind: "judge", offline: true, config: { ...common, judgeEndpoint: "sim-judge-weak" } });
  await answerOffline(request, otherJudge.runId, (customId) => `${text.otherJudgeRationale}\n\nVerdict: \\boxed{${chunkOf(customId) === 1 ? "Negative" : "Positive"}}`);
  // Offline, so it is never sent: its page shows the endpoint's name in the configuration snapshot.
  const hostileEndpointRun = await mutate<{ runId: string }>(request, "run.launch", { kind: "judge", offline: true, config: { ...common, judgeEndpoint: text.endpointName } });
  await waitForRun(request, (await mutate<{ runId: string }>(request, "export.start", { spec: { kind: "labels", runId: annotate.runId } })).runId);

  const queue = await mutate<{ queueId: string }>(request, "annotationQueue.createQueue", {
    name: text.queueName,
    instructions: text.queueInstructions,
    datasetId,
    annotateRunId: annotate.runId,
    judgeRunId: judge.runId,
    selection: { kind: "filter", filter: {}, limit: 10 },
  });
  const view = await mutate<{ assignmentId: string; itemId: string; chunks: Array<{ id: string }> }>(annotatorRequest, "annotationQueue.next", { queueId: queue.queueId });
  await mutate(annotatorRequest, "annotationQueue.submit", {
    assignmentId: view.assignmentId,
    labels: view.chunks.map((chunk, i) => ({ chunkId: chunk.id, rating: i === 0 ? -1 : 1, flagged: i === 0, ...(i === 0 ? { note: text.annotationNote } : {}) })),
  });
  return { datasetId: datasetId!, solutionId, annotateRunId: annotate.runId, judgeRunId: judge.runId, otherJudgeRunId: otherJudge.runId, hostileEndpointRunId: hostileEndpointRun.runId, promptsFileId, skipImportRunId: skipImport.runId, queueId: queue.queueId, itemId: view.itemId };
}

test("the checks catch the payloads when they are rendered as HTML", async ({ browser }) => {
  const context = await browser.newContext();
  const watch = await watchForAttacks(context);
  const page = await context.newPage();
  // What a page that passed model text to innerHTML would look like (the refresh aside: it would leave the page).
  const [withoutRefresh, refresh] = [longPayload("control").replace(/<meta[^>]*>/, ""), /<meta[^>]*>/.exec(longPayload("control"))![0]];
  await page.setContent(`<main>${withoutRefresh}</main>`);
  await page.waitForTimeout(500);
  const found = await injectedMarkup(page);
  expect(found.length, found.join("\n")).toBeGreaterThan(8);
  expect(watch.requests).toContain("http://attacker.invalid/steal?img=control");
  expect(watch.dialogs).toContain("alert: img control");
  await page.setContent(`<head>${refresh}</head>`);
  await expect.poll(() => watch.requests).toContain("http://attacker.invalid/steal?meta=control");
  await context.close();
  console.error(`xss control: ${found.length} injected elements or attributes, ${watch.requests.length} requests to attacker host, ${watch.dialogs.length} dialogs detected`);
});

test("hostile text in every model output and every name stays text on every page that shows it", async ({ page, playwright }) => {
  test.setTimeout(240_000);
  const shownFields = new Set(PAGES.flatMap((p) => p.shows));
  expect(Object.keys(FIELDS).filter((field) => !shownFields.has(field as Field)), "fields no page is checked for").toEqual([]);

  const watch = await watchForAttacks(page.context());
  await signIn(page);
  const annotatorRequest = await playwright.request.newContext({ baseURL: APP_ORIGIN });
  const seeded = await test.step("seed hostile data", () => seed(page.request, annotatorRequest));
  await annotatorRequest.dispose();

  for (const visit of PAGES) {
    await test.step(visit.name, async () => {
      const path = visit.path(seeded);
      await page.goto(path);
      await expect(page.getByText("Loading…")).toHaveCount(0);
      await expect(page.getByText("This page couldn’t load")).toHaveCount(0);
      await visit.reveal?.(page);
      expect(watch.pageErrors, `uncaught errors on ${visit.name}`).toEqual([]);
      await expectOnlyText(page, visit.shows, `${visit.name} (${path})`);
      // A refresh or a handler would have had its chance by now; the page must still be where it was sent.
      await page.waitForTimeout(300);
      expect(new URL(page.url()).host).toBe(new URL(APP_ORIGIN).host);
    });
  }

  await test.step("a stored file with hostile text is served as a sandboxed attachment, never as a page", async () => {
    const response = await page.request.get(`/api/files/${seeded.promptsFileId}`);
    expect(response.status()).toBe(200);
    expect(await response.text()).toContain(marker("problem"));
    expect(response.headers()["content-disposition"]).toMatch(/^attachment;/);
    expect(response.headers()["content-type"]).not.toMatch(/html|xml|svg/i);
    expect(response.headers()["x-content-type-options"]).toBe("nosniff");
    expect(response.headers()["content-security-policy"]).toBe("sandbox");
  });

  expect(watch.dialogs, "dialogs opened by the payloads").toEqual([]);
  expect(watch.requests, `requests to the attacker's host`).toEqual([]);
  expect(watch.popups, "windows opened by the payloads").toEqual([]);
  console.error(`xss: ${Object.keys(FIELDS).length} fields × ${PAGES.length} pages, ${watch.dialogs.length} dialogs, ${watch.requests.length} requests to attacker host`);
});
