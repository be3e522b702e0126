import path from "node:path";
import { fileURLToPath } from "node:url";
import { cohensKappa, fleissKappaFromLabels } from "@stepwiser/core";
import { expect, test, type Page } from "@playwright/test";
import { addUsers, admin, sessionFor, signInAs, type Account } from "./users";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const suffix = Date.now().toString(36);
const password = "annotate-e2e-password";
const account = (name: string, role: Account["role"]): Account => ({ email: `${name}-${suffix}@e2e.test`, name: `${name}-${suffix}`, role, password });
const ann1 = account("ann1", "annotator");
const ann2 = account("ann2", "annotator");
const outsider = account("ann3", "annotator");
const researcher = account("res", "researcher");
const viewer = account("view", "viewer");

/** Ratings typed per (item, chunk index), per annotator: what the agreement shown must be computed from. */
type Typed = Map<string, Map<number, string>>;

async function currentItem(page: Page): Promise<string | null> {
  const done = page.getByTestId("queue-done");
  const annotate = page.getByTestId("annotate-page");
  await expect(annotate.getByTestId("annotate-chunk").first().or(done)).toBeVisible();
  if (await done.isVisible()) return null;
  return annotate.getAttribute("data-item");
}

/**
 * Labels every remaining item by keyboard only: one digit per chunk (the
 * page moves to the next chunk by itself), Enter to submit.
 */
async function labelAll(page: Page, typed: Typed, digitFor: (chunk: number, count: number) => "1" | "2" | "3") {
  const ratingOf = { "1": "-1", "2": "0", "3": "1" } as const;
  for (let item = await currentItem(page); item !== null; ) {
    const count = await page.getByTestId("annotate-chunk").count();
    const ratings = new Map<number, string>();
    for (let chunk = 0; chunk < count; chunk++) {
      const digit = digitFor(chunk, count);
      await page.keyboard.press(digit);
      ratings.set(chunk, ratingOf[digit]);
    }
    await expect(page.getByTestId("annotate-chunk")).toHaveCount(count);
    await page.keyboard.press("Enter");
    typed.set(item, ratings);
    await expect(page.getByTestId("annotate-page")).not.toHaveAttribute("data-item", item);
    item = await currentItem(page);
  }
}

test("two member annotators audit a k=2 queue by keyboard; a researcher sees kappa and adjudicates; a non-member annotator and a viewer cannot annotate", async ({ page, browser }) => {
  test.setTimeout(180_000);
  await signInAs(page, admin.email, admin.password);
  await addUsers(page, [ann1, ann2, outsider, researcher, viewer]);

  // The researcher turns the first three solutions of the demo dataset into a queue with two annotators per item.
  const res = await sessionFor(browser, researcher);
  await res.page.goto("/datasets");
  await res.page.getByRole("link", { name: "Simulated world (demo)" }).click();
  await expect(res.page).toHaveURL(/\/datasets\/[^/?]+$/);
  await res.page.getByRole("link", { name: "Audit this list in an annotation queue" }).click();
  await res.page.getByLabel("Name").fill("Demo audit");
  await res.page.getByLabel("Annotators per item (k)").fill("2");
  await res.page.getByLabel("Monte-Carlo labels audited (annotate run)").selectOption({ index: 1 });
  await res.page.getByLabel("Judge verdicts audited (judge run)").selectOption({ index: 1 });
  await res.page.getByLabel("At most this many solutions").fill("3");
  // Annotators work only the queues they are members of: the two who will label this one are chosen here.
  const annotators = res.page.getByTestId("queue-annotators");
  await annotators.getByRole("checkbox", { name: ann1.email }).check();
  await annotators.getByRole("checkbox", { name: ann2.email }).check();
  await res.page.getByRole("button", { name: "Create queue" }).click();
  await expect(res.page).toHaveURL(/\/annotation-queues\/(?!new)[^/?]+$/);
  const queueUrl = new URL(res.page.url()).pathname;
  await expect(res.page.getByTestId("queue-progress")).toContainText("0 of 3 items done");
  await expect(res.page.getByTestId("queue-member")).toHaveText([new RegExp(ann1.email), new RegExp(ann2.email)]);

  // Both annotators open the queue at the same moment: their leases must not collide.
  const [a, b] = await Promise.all([sessionFor(browser, ann1), sessionFor(browser, ann2)]);
  // An annotator's studio is their queues: no datasets, runs, comparisons, exports or endpoints in sight.
  await expect(a.page).toHaveURL(/\/annotation-queues$/);
  await expect(a.page.getByTestId("queue-row")).toHaveCount(1);
  await expect(a.page.getByTestId("queue-row")).toContainText("Demo audit");
  for (const name of ["Datasets", "Runs", "Endpoints", "Compare", "Exports", "Users"]) await expect(a.page.getByRole("navigation").getByRole("link", { name, exact: true })).toHaveCount(0);
  await a.page.goto("/datasets");
  await expect(a.page).toHaveURL(/\/annotation-queues\?denied=research\.read$/);
  await Promise.all([a.page.goto(`${queueUrl}/annotate`), b.page.goto(`${queueUrl}/annotate`)]);
  const [firstA, firstB] = await Promise.all([currentItem(a.page), currentItem(b.page)]);
  expect(firstA).not.toBeNull();
  expect(firstB).not.toBeNull();
  expect(firstA).not.toBe(firstB);

  // Shortcut help is one key away.
  await a.page.keyboard.press("?");
  await expect(a.page.getByRole("dialog", { name: "Keyboard shortcuts" })).toContainText("undo the last submission");
  await a.page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/annotation.png"), fullPage: true });
  await a.page.keyboard.press("?");

  // Annotator 1 calls the last chunk wrong, annotator 2 the first chunk neutral; the rest right.
  const typedA: Typed = new Map();
  const typedB: Typed = new Map();
  await labelAll(a.page, typedA, (chunk, count) => (chunk === count - 1 ? "1" : "3"));
  await labelAll(b.page, typedB, (chunk) => (chunk === 0 ? "2" : "3"));
  expect(typedA.size).toBe(3);
  expect(typedB.size).toBe(3);

  // u reopens annotator 1's last submission with the ratings given; a correction is a new submission.
  await a.page.keyboard.press("u");
  await expect(a.page.getByTestId("annotate-chunk").first()).toBeVisible();
  const reopened = await a.page.getByTestId("annotate-page").getAttribute("data-item");
  expect(typedA.has(reopened!)).toBe(true);
  await expect(a.page.getByTestId("annotate-chunk").first()).toHaveAttribute("data-rating", typedA.get(reopened!)!.get(0)!);
  await a.page.keyboard.press("2");
  await a.page.keyboard.press("Enter");
  await expect(a.page.getByTestId("queue-done")).toBeVisible();
  typedA.get(reopened!)!.set(0, "0");

  // The agreement shown equals the core's computation on the ratings typed.
  const unitsA: string[] = [];
  const unitsB: string[] = [];
  for (const [item, ratings] of typedA) {
    for (const [chunk, rating] of ratings) {
      unitsA.push(rating);
      unitsB.push(typedB.get(item)!.get(chunk)!);
    }
  }
  const cohen = cohensKappa(unitsA, unitsB);
  const fleiss = fleissKappaFromLabels(unitsA.map((rating, i) => [rating, unitsB[i]!]));
  await res.page.reload();
  await expect(res.page.getByTestId("queue-progress")).toContainText("3 of 3 items done");
  const cohenCard = res.page.getByTestId("cohen-kappa");
  await expect(cohenCard).toHaveCount(1);
  expect(Number(await cohenCard.getAttribute("data-kappa"))).toBeCloseTo(cohen.kappa, 12);
  await expect(cohenCard).toContainText(cohen.kappa.toFixed(3));
  const fleissCard = res.page.getByTestId("fleiss-kappa");
  expect(Number(await fleissCard.getAttribute("data-kappa"))).toBeCloseTo(fleiss.kappa, 12);
  await expect(fleissCard).toContainText(fleiss.kappa.toFixed(3));
  const disagreements = [...typedA].reduce((n, [item, ratings]) => n + [...ratings].filter(([chunk, rating]) => typedB.get(item)!.get(chunk) !== rating).length, 0);
  await expect(res.page.getByTestId("disagreement-row")).toHaveCount(disagreements);
  await expect(res.page.getByTestId("annotator-progress")).toHaveCount(2);

  // The researcher adjudicates the first disputed item: every chunk right.
  await res.page.getByTestId("disagreement-row").first().getByRole("link").click();
  await expect(res.page.getByTestId("adjudication-status")).toHaveText("not adjudicated");
  for (const group of await res.page.getByRole("group", { name: /Final rating of chunk/ }).all()) await group.getByRole("button", { name: "+1" }).click();
  await res.page.getByRole("button", { name: "Set the final label" }).click();
  await expect(res.page.getByTestId("adjudication-status")).toContainText("adjudicated ");
  await expect(res.page.getByTestId("final-status").first()).toHaveText("adjudicated +1");
  await res.page.getByText(/^History \(\d+ label rows, append-only\)$/).click();
  await expect(res.page.getByTestId("history-row").filter({ hasText: "adjudication" }).first()).toBeVisible();
  await res.page.goto(queueUrl);
  await expect(res.page.getByTestId("disagreement-row").filter({ hasText: "adjudicated" }).first()).toBeVisible();

  // The export carries every label row with its provenance; the undone submission's rows are there, superseded.
  const queueId = queueUrl.split("/").pop()!;
  const exported = await res.page.request.get(`/api/annotation-queues/${queueId}/labels`);
  expect(exported.status()).toBe(200);
  const rows = (await exported.text()).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const typedCount = [...typedA.values(), ...typedB.values()].reduce((n, ratings) => n + ratings.size, 0);
  expect(rows.filter((r) => r.source === "annotation" && r.current === true)).toHaveLength(typedCount);
  expect(rows.filter((r) => r.source === "annotation" && r.current === false)).toHaveLength(typedA.get(reopened!)!.size);
  expect(rows.filter((r) => r.source === "adjudication").length).toBeGreaterThan(0);
  for (const row of rows) {
    expect([ann1.email, ann2.email, researcher.email]).toContain(row.author_email);
    expect(row).toMatchObject({ queue_id: queueId, queue_name: "Demo audit", scheme: "rating" });
    expect(typeof row.created_at).toBe("string");
    expect(typeof row.external_id).toBe("string");
  }

  // The three-way view puts the human labels of this queue beside the judge's verdicts and the Monte-Carlo labels
  // (once the demo's judge and annotate runs have finished).
  await expect(async () => {
    await res.page.goto(queueUrl);
    await res.page.getByRole("link", { name: "Judge × Monte-Carlo × these labels" }).click();
    await expect(res.page.getByTestId("three-way-summary")).toContainText(/[1-9]\d* with all three/, { timeout: 3_000 });
  }).toPass({ timeout: 150_000 });
  for (const pair of ["judge-mc", "judge-human", "mc-human"]) await expect(res.page.getByTestId(`matrix-${pair}`)).toBeVisible();
  await expect(res.page.getByTestId("kappa-judge-human")).toHaveAttribute("data-value", /\d/);
  await expect(res.page.getByTestId("reading-queue")).toHaveValue(queueId);
  await res.page.screenshot({ path: path.join(repoRoot, "e2e/screenshots/three-way.png"), fullPage: true });

  // An annotator who is not a member sees no queue, gets no item, and the API answers as for a queue that does not exist.
  const o = await sessionFor(browser, outsider);
  await expect(o.page.getByText("No queues for you yet")).toBeVisible();
  await o.page.goto(`${queueUrl}/annotate`);
  await expect(o.page.getByRole("alert").filter({ hasText: `annotation queue ${queueId} does not exist` })).toBeVisible();
  const guessed = await o.page.request.post("/api/trpc/annotationQueue.next", { data: { json: { queueId } } });
  expect(guessed.status()).toBe(404);

  // The researcher adds them on the queue's members panel: the queue appears for them; removed, it is gone again.
  await res.page.goto(queueUrl);
  const members = res.page.getByTestId("members-panel");
  await members.getByLabel("Add an annotator").selectOption({ label: `${outsider.name} (${outsider.email})` });
  await members.getByRole("button", { name: "Add" }).click();
  await expect(res.page.getByTestId("queue-member")).toHaveCount(3);
  await o.page.goto("/annotation-queues");
  await expect(o.page.getByTestId("queue-row")).toContainText("Demo audit");
  await members.getByRole("button", { name: `Remove ${outsider.email}` }).click();
  await expect(res.page.getByTestId("queue-member")).toHaveCount(2);
  await o.page.reload();
  await expect(o.page.getByText("No queues for you yet")).toBeVisible();
  await o.context.close();

  // A viewer reads the queue but cannot annotate: no button, a clear refusal, and the API says 403.
  const v = await sessionFor(browser, viewer);
  await v.page.goto(queueUrl);
  await expect(v.page.getByTestId("queue-progress")).toBeVisible();
  await expect(v.page.getByRole("link", { name: "Annotate" })).toHaveCount(0);
  await v.page.goto(`${queueUrl}/annotate`);
  await expect(v.page.getByRole("alert").filter({ hasText: "needs the annotator role" })).toBeVisible();
  const refused = await v.page.request.post("/api/trpc/annotationQueue.next", { data: { json: { queueId } } });
  expect(refused.status()).toBe(403);
  expect((await v.page.request.get(`/api/annotation-queues/${queueId}/labels`)).status()).toBe(403);

  await Promise.all([a.context.close(), b.context.close(), res.context.close(), v.context.close()]);
});
