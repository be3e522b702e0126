import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { signIn } from "./sign-in";
import { APP_ORIGIN, mutate, query } from "./trpc";
import { atScale } from "@stepwiser/config/test-scale";

/**
 * Fifty researchers at once against the production server on loopback, each
 * signed in through the auth endpoint with a session of their own. A visit to a
 * page is what the browser sends for it: the document, then the tRPC reads the
 * page made when a real browser opened it (recorded once, below). Annotation is
 * the annotate page's own pair of calls, next and submit, on shared queues.
 *
 * Requests go through Node's fetch, which (like a browser) stops reusing a
 * keep-alive connection just before the server's advertised idle timeout;
 * Playwright's request client races the server's close and reports the lost
 * race as ECONNRESET, which is no fault of the server.
 */

const USERS = 50;
// 30 s proves the property in `npm test` (about 200 submissions, every request kind dozens of times);
// `STEPWISER_TEST_SCALE=full npm test -- browser` holds the load for the 60 s it always did.
const DURATION_MS = atScale({ default: 30_000, full: 60_000 });
const THINK_MS = { min: 100, max: 600 };
const suffix = Date.now().toString(36);
const password = "load-e2e-password";

/** What each user does, and how often (weights). */
const ACTIONS = {
  datasets: 1,
  solutions: 3,
  inspector: 3,
  rollouts: 2,
  run: 1,
  compare: 2,
  annotate: 4,
} as const;
type Action = keyof typeof ACTIONS;

interface Recorded {
  document: string;
  data: string[];
}

interface Sample {
  kind: string;
  ms: number;
  status: number;
}

/** The tRPC reads a page makes when a browser opens it (after `reveal`, if given). */
async function recordPage(page: Page, path: string, reveal?: (page: Page) => Promise<void>): Promise<Recorded> {
  const data = new Set<string>();
  const onRequest = (request: { url(): string; method(): string }) => {
    if (request.method() === "GET" && request.url().includes("/api/trpc/")) data.add(request.url().slice(APP_ORIGIN.length));
  };
  page.on("request", onRequest);
  const firstRead = page.waitForResponse((response) => response.url().includes("/api/trpc/"));
  await page.goto(path);
  await firstRead;
  await page.waitForLoadState("networkidle");
  await reveal?.(page);
  await page.waitForLoadState("networkidle");
  page.off("request", onRequest);
  expect(data.size, `tRPC reads of ${path}`).toBeGreaterThan(0);
  return { document: path, data: [...data] };
}

const pick = <T,>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function weightedAction(): Action {
  const entries = Object.entries(ACTIONS) as Array<[Action, number]>;
  let roll = Math.random() * entries.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [action, weight] of entries) {
    roll -= weight;
    if (roll < 0) return action;
  }
  return entries[0]![0];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

class Recorder {
  readonly samples: Sample[] = [];
  readonly networkErrors: string[] = [];

  /** Times one request up to its last byte; a thrown request (refused, reset) is a network error. Returns the body, if any. */
  async time(kind: string, send: () => Promise<Response>): Promise<string | null> {
    const started = performance.now();
    try {
      const response = await send();
      const body = await response.text();
      this.samples.push({ kind, ms: performance.now() - started, status: response.status });
      return response.ok ? body : null;
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      this.networkErrors.push(`${kind}: ${error instanceof Error ? error.message : String(error)}${cause}`);
      return null;
    }
  }

  summary() {
    const kinds = [...new Set(this.samples.map((s) => s.kind))].sort();
    const stats = (samples: Sample[]) => {
      const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
      return {
        requests: samples.length,
        p50Ms: Math.round(percentile(ms, 50)),
        p95Ms: Math.round(percentile(ms, 95)),
        maxMs: Math.round(ms[ms.length - 1] ?? Number.NaN),
        status4xx: samples.filter((s) => s.status >= 400 && s.status < 500).length,
        status5xx: samples.filter((s) => s.status >= 500).length,
      };
    };
    return { all: stats(this.samples), byKind: Object.fromEntries(kinds.map((kind) => [kind, stats(this.samples.filter((s) => s.kind === kind))])) };
  }
}

/** One researcher's session: the cookies the auth endpoint set, sent with every request. */
class Session {
  private constructor(private readonly cookie: string) {}

  /** Signs in through the auth endpoint, as the sign-in form does. */
  static async open(email: string, password: string): Promise<Session> {
    const response = await fetch(`${LOOPBACK}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP_ORIGIN },
      body: JSON.stringify({ email, password }),
    });
    expect(response.status, `sign-in of ${email}: ${await response.text()}`).toBe(200);
    return new Session(response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "));
  }

  get(path: string): Promise<Response> {
    return fetch(`${LOOPBACK}${path}`, { headers: { cookie: this.cookie } });
  }

  /** A tRPC mutation, as the app's client sends it. */
  mutate(procedure: string, input: unknown): Promise<Response> {
    return fetch(`${LOOPBACK}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { cookie: this.cookie, "content-type": "application/json", origin: APP_ORIGIN },
      body: JSON.stringify({ json: input }),
    });
  }
}

/** The server itself, not a name that may resolve to IPv6 first. */
const LOOPBACK = APP_ORIGIN.replace("//localhost:", "//127.0.0.1:");

interface DemoRuns {
  datasetId: string;
  annotateRunId: string;
  judgeRunIds: string[];
}

/** The demo dataset and its runs, once its annotate run and both judge runs have finished. */
async function demoRuns(request: APIRequestContext): Promise<DemoRuns> {
  const datasets = await query<Array<{ id: string; name: string }>>(request, "dataset.list", {});
  const datasetId = datasets.find((d) => d.name === "Simulated world (demo)")!.id;
  let runs: Array<{ id: string; kind: string; status: string }> = [];
  await expect(async () => {
    runs = (await query<{ runs: typeof runs }>(request, "run.list", { datasetId, pageSize: 200 })).runs;
    const finished = (kind: string) => runs.filter((r) => r.kind === kind && r.status === "completed");
    expect(finished("annotate").length).toBeGreaterThan(0);
    expect(finished("judge").length).toBeGreaterThan(1);
  }).toPass({ timeout: 60_000, intervals: [2000] });
  const completed = runs.filter((r) => r.status === "completed");
  // The oldest runs are the demo's own (the list is newest first).
  return { datasetId, annotateRunId: completed.filter((r) => r.kind === "annotate").at(-1)!.id, judgeRunIds: completed.filter((r) => r.kind === "judge").slice(-2).map((r) => r.id) };
}

test(`${USERS} researchers browse and annotate for ${DURATION_MS / 1000} s: every request answered, none with a 5xx`, async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await signIn(page);
  const admin = page.request;
  const demo = await demoRuns(admin);
  const solutions = await query<{ items: Array<{ id: string }> }>(admin, "solution.list", { datasetId: demo.datasetId, pageSize: 24 });
  const solutionIds = solutions.items.map((s) => s.id);
  expect(solutionIds.length).toBeGreaterThan(0);

  // Five queues over the demo dataset, ten annotators per item: enough items that annotating does not run dry in a minute.
  const queueIds: string[] = [];
  for (let q = 0; q < 5; q++) {
    const created = await mutate<{ queueId: string }>(admin, "annotationQueue.createQueue", {
      name: `Load ${suffix} #${q + 1}`,
      datasetId: demo.datasetId,
      annotateRunId: demo.annotateRunId,
      annotatorsPerItem: 10,
      selection: { kind: "filter", filter: {}, limit: 100 },
    });
    queueIds.push(created.queueId);
  }

  // What the browser fetches on each page, recorded from the real pages.
  const [judgeA, judgeB] = demo.judgeRunIds as [string, string];
  const visits: Record<Exclude<Action, "annotate">, Recorded[]> = {
    datasets: [await recordPage(page, "/datasets")],
    solutions: [
      await recordPage(page, `/datasets/${demo.datasetId}`),
      await recordPage(page, `/datasets/${demo.datasetId}?annotateRunId=${demo.annotateRunId}&correct=false&sort=qMin`),
      await recordPage(page, `/datasets/${demo.datasetId}?judgeRunId=${judgeA}&judgeVerdict=flagged&sort=judgeFirstNegative`),
      await recordPage(page, `/datasets/${demo.datasetId}?search=marbles&annotateRunId=${demo.annotateRunId}&disagreement=rules`),
    ],
    inspector: [],
    rollouts: [],
    run: [await recordPage(page, `/runs/${demo.annotateRunId}`), await recordPage(page, `/runs/${judgeA}`)],
    compare: [
      await recordPage(page, `/compare?dataset=${demo.datasetId}&runs=${judgeA},${judgeB}&baseline=${judgeB}`),
      await recordPage(page, `/compare?dataset=${demo.datasetId}&runs=${judgeA},${judgeB}&tab=disagreements&a=${judgeA}&b=${judgeB}`),
    ],
  };
  for (const id of solutionIds.slice(0, 4)) {
    const inspector = await recordPage(page, `/solutions/${id}`);
    visits.inspector.push(inspector);
    const rollouts = await recordPage(page, `/solutions/${id}`, async (p) => {
      // Later annotate runs may cover other solutions: read the demo's, which covers them all.
      const runPicker = p.getByLabel("Annotate run");
      if (await runPicker.isVisible()) await runPicker.selectOption(demo.annotateRunId);
      await p.getByRole("button", { name: "rollouts" }).first().click();
      await expect(p.getByRole("region", { name: "Rollouts" }).getByRole("listitem").first()).toBeVisible();
    });
    // The panel's own read: what opening the rollouts of a chunk costs.
    visits.rollouts.push({ document: "", data: rollouts.data.filter((url) => url.includes("rollout.list")) });
  }
  expect(visits.rollouts.every((v) => v.data.length === 1)).toBe(true);

  // Fifty researchers, each signed in through the auth endpoint.
  const accounts = Array.from({ length: USERS }, (_, i) => ({ email: `load-${i}-${suffix}@e2e.test`, name: `Load researcher ${i}`, role: "researcher", password }));
  for (const account of accounts) await mutate(admin, "user.create", account);
  const users = await Promise.all(accounts.map((account) => Session.open(account.email, account.password)));

  const recorder = new Recorder();
  const visit = async (session: Session, action: string, recorded: Recorded) => {
    await Promise.all([
      recorded.document ? recorder.time(`${action} page`, () => session.get(recorded.document)) : Promise.resolve(),
      ...recorded.data.map((url) => recorder.time(`${action} data`, () => session.get(url))),
    ]);
  };
  /** The annotate page's loop for one item: lease the next, rate every chunk, submit. False once the queue has nothing left for this user. */
  const annotate = async (session: Session, queueId: string): Promise<boolean> => {
    const body = await recorder.time("annotation next", () => session.mutate("annotationQueue.next", { queueId }));
    const view = body ? (JSON.parse(body) as { result: { data: { json: { assignmentId: string; chunks: Array<{ id: string }> } | null } } }).result.data.json : null;
    if (!view) return false;
    const labels = view.chunks.map((chunk) => ({ chunkId: chunk.id, rating: pick([-1, 0, 1]) }));
    await recorder.time("annotation submit", () => session.mutate("annotationQueue.submit", { assignmentId: view.assignmentId, labels }));
    return true;
  };

  const startedAt = Date.now();
  const deadline = startedAt + DURATION_MS;
  await Promise.all(
    users.map(async (session, i) => {
      const queueId = queueIds[i % queueIds.length]!;
      let queueHasWork = true;
      while (Date.now() < deadline) {
        const action = weightedAction();
        if (action === "annotate") {
          if (queueHasWork) queueHasWork = await annotate(session, queueId);
        } else {
          await visit(session, action, pick(visits[action]));
        }
        await new Promise((resolve) => setTimeout(resolve, THINK_MS.min + Math.random() * (THINK_MS.max - THINK_MS.min)));
      }
    }),
  );
  const elapsedS = (Date.now() - startedAt) / 1000;

  const summary = recorder.summary();
  const report = { users: USERS, durationS: DURATION_MS / 1000, elapsedS, networkErrors: recorder.networkErrors, ...summary };
  // Beside the other test output (git-ignored), at a path that stays the same from run to run.
  const file = path.join(testInfo.project.outputDir, "load.json");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  for (const [kind, s] of Object.entries(summary.byKind)) {
    console.error(`  ${kind.padEnd(18)} ${String(s.requests).padStart(6)} requests  p50 ${String(s.p50Ms).padStart(5)} ms  p95 ${String(s.p95Ms).padStart(5)} ms  max ${String(s.maxMs).padStart(5)} ms  ${s.status4xx} × 4xx`);
  }
  console.error(`load: ${USERS} users × ${DURATION_MS / 1000} s, ${summary.all.requests} requests, p95 ${summary.all.p95Ms} ms, ${summary.all.status5xx} × 5xx (${file})`);

  expect(recorder.networkErrors, "requests that got no answer").toEqual([]);
  expect(summary.all.status5xx, "server errors").toBe(0);
  for (const kind of ["datasets page", "solutions data", "inspector data", "rollouts data", "run data", "compare data", "annotation next", "annotation submit"]) {
    expect(summary.byKind[kind]?.requests ?? 0, `${kind} requests made`).toBeGreaterThan(0);
  }
  // Annotation went through: submissions were stored, not refused.
  const submitted = recorder.samples.filter((s) => s.kind === "annotation submit" && s.status === 200).length;
  expect(submitted).toBeGreaterThan(USERS);
});
