import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./sign-in";
import { mutate, query, upload, waitForRun } from "./trpc";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshot = (name: string) => path.join(repoRoot, "e2e/screenshots", name);
const WIDTHS = [1280, 1440] as const;
const DEMO_DATASET = "Simulated world (demo)";
const DEMO_QUEUE = "Demo: least confident Monte-Carlo labels";

interface RunRow {
  id: string;
  kind: string;
  status: string;
  label: string;
}

/**
 * What is wrong with the page's layout, measured in the page: anything reaching past the window's right edge
 * (horizontal scrollers may hold wider content), content cut off by a clipping box, a shortened text without
 * a tooltip holding all of it, a header taller than one row, and SVG text outside its drawing.
 */
function layoutProblems({ header }: { header: boolean }): string[] {
  const problems: string[] = [];
  const width = window.innerWidth;
  const selector = (element: Element): string => {
    const parts: string[] = [];
    for (let e: Element | null = element; e && e !== document.body && parts.length < 5; e = e.parentElement) {
      const testId = e.getAttribute("data-testid");
      const classes = Array.from(e.classList).filter((c) => !c.includes(":") && !c.includes("[")).slice(0, 3);
      parts.unshift(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${testId ? `[data-testid="${testId}"]` : ""}${classes.map((c) => `.${c}`).join("")}`);
      if (e.id || testId) break;
    }
    return parts.join(" > ");
  };
  const text = (element: Element) => (element.textContent ?? "").replace(/\s+/g, " ").trim();
  const visible = (element: Element) => element.checkVisibility({ visibilityProperty: true, opacityProperty: false });
  // Whether an element sits in a box that scrolls sideways, remembered per element: pages have thousands.
  const scrolled = new Map<Element, boolean>();
  const inScroller = (element: Element): boolean => {
    const parent = element.parentElement;
    if (!parent) return false;
    let answer = scrolled.get(parent);
    if (answer === undefined) {
      answer = ["auto", "scroll"].includes(getComputedStyle(parent).overflowX) || inScroller(parent);
      scrolled.set(parent, answer);
    }
    return answer;
  };
  const isScreenReaderOnly = (element: Element) => {
    const rect = element.getBoundingClientRect();
    return rect.width <= 1 && rect.height <= 1;
  };

  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > width) problems.push(`the page is ${pageWidth} px wide in a ${width} px window`);
  const elements = Array.from(document.body.querySelectorAll("*")).filter((e) => !(e instanceof HTMLOptionElement) && visible(e));
  const pastEdge = new Set<Element>();
  for (const element of elements) {
    const rect = element.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || rect.bottom < 0) continue;
    if (rect.right > width + 0.5 && !inScroller(element)) pastEdge.add(element);
  }
  // The outermost offenders only: their children come along.
  for (const element of pastEdge) {
    if (element.parentElement && pastEdge.has(element.parentElement)) continue;
    problems.push(`${selector(element)} ends at x = ${Math.round(element.getBoundingClientRect().right)} (window ${width}): "${text(element).slice(0, 60)}"`);
  }

  for (const element of elements) {
    const style = getComputedStyle(element);
    if (!["hidden", "clip"].includes(style.overflowX) || isScreenReaderOnly(element)) continue;
    if (element.scrollWidth <= element.clientWidth + 1) continue;
    if (style.textOverflow === "ellipsis") {
      const full = text(element);
      const tooltip = element.closest("[title]")?.getAttribute("title") ?? "";
      if (!tooltip.replace(/\s+/g, " ").includes(full)) problems.push(`${selector(element)} shortens "${full.slice(0, 80)}" without a tooltip holding all of it`);
    } else if (!(element instanceof SVGElement)) {
      problems.push(`${selector(element)} cuts off ${element.scrollWidth - element.clientWidth} px of its content: "${text(element).slice(0, 60)}"`);
    }
  }

  if (header) {
    const nav = document.querySelector("body header nav");
    if (!nav) problems.push("no header navigation");
    else {
      const items = Array.from(nav.children).filter((c) => visible(c) && !isScreenReaderOnly(c)).map((c) => ({ c, rect: c.getBoundingClientRect() }));
      const lowestTop = Math.max(...items.map((i) => i.rect.top));
      const highestBottom = Math.min(...items.map((i) => i.rect.bottom));
      if (lowestTop >= highestBottom) problems.push(`the header wraps onto more than one row: ${items.filter((i) => i.rect.top >= highestBottom).map((i) => `"${text(i.c)}"`).join(", ")} below the first`);
      // An item's words on one line: no box of its text lies wholly below another's.
      for (const { c } of items) {
        const boxes: DOMRect[] = [];
        const walker = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.textContent?.trim() || !node.parentElement || isScreenReaderOnly(node.parentElement)) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          boxes.push(...Array.from(range.getClientRects()).filter((r) => r.width > 0));
        }
        if (boxes.some((a) => boxes.some((b) => b.top >= a.bottom - 1))) problems.push(`the header item "${text(c)}" breaks over more than one line`);
      }
      const navStyle = getComputedStyle(nav);
      const rowHeight = Math.max(...items.map((i) => i.rect.height)) + Number.parseFloat(navStyle.paddingTop) + Number.parseFloat(navStyle.paddingBottom);
      const navHeight = nav.getBoundingClientRect().height;
      if (navHeight > rowHeight + 1) problems.push(`the header is ${Math.round(navHeight)} px high, one row is ${Math.round(rowHeight)} px`);
    }
  }

  for (const svg of Array.from(document.querySelectorAll("svg"))) {
    if (!visible(svg)) continue;
    const box = svg.getBoundingClientRect();
    const viewBox = svg.viewBox.baseVal;
    for (const label of Array.from(svg.querySelectorAll("text"))) {
      if (!label.textContent?.trim()) continue;
      const local = label.getBBox();
      const rect = label.getBoundingClientRect();
      const outsideBox = rect.left < box.left - 1 || rect.right > box.right + 1 || rect.top < box.top - 1 || rect.bottom > box.bottom + 1;
      // For untransformed labels the viewBox is the drawing's own coordinate box too.
      const outsideViewBox =
        viewBox && viewBox.width > 0 && !label.getAttribute("transform")
          ? local.x < viewBox.x - 1 || local.y < viewBox.y - 1 || local.x + local.width > viewBox.x + viewBox.width + 1 || local.y + local.height > viewBox.y + viewBox.height + 1
          : false;
      if (outsideBox || outsideViewBox) {
        const owner = svg.closest("[aria-label], [data-testid]");
        problems.push(`the chart label "${text(label)}" in ${owner ? selector(owner) : selector(svg)} is clipped (label ${Math.round(rect.left - box.left)}..${Math.round(rect.right - box.left)} × ${Math.round(rect.top - box.top)}..${Math.round(rect.bottom - box.top)} in a ${Math.round(box.width)} × ${Math.round(box.height)} drawing)`);
      }
    }
  }
  return problems;
}

/** Two animation frames and a short pause: what the charts take to re-measure after the window changes. */
const settle = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 30)))));

interface Visit {
  name: string;
  path?: string;
  header?: boolean;
  /** Waits for the page's content (and opens what is to be seen), at the first width. */
  ready: (page: Page) => Promise<void>;
  /** More that must hold on this page, at each width. */
  also?: (page: Page) => Promise<void>;
}

/** Checks a page at both widths, starting at the window's current one (a resize less per page). */
async function checkAtEachWidth(page: Page, visit: Visit) {
  if (visit.path) await page.goto(visit.path);
  await expect(page.getByText("Loading…")).toHaveCount(0);
  await visit.ready(page);
  const current = page.viewportSize()?.width;
  for (const width of current === WIDTHS[1] ? [...WIDTHS].reverse() : WIDTHS) {
    if (width !== page.viewportSize()?.width) await page.setViewportSize({ width, height: 900 });
    await settle(page);
    const problems = await page.evaluate(layoutProblems, { header: visit.header ?? true });
    expect.soft(problems, `${visit.name} at ${width} px`).toEqual([]);
    if (visit.also) await visit.also(page);
    await page.screenshot({ path: screenshot(`layout-${visit.name}-${width}.png`), fullPage: true });
  }
}

test("the layout checks catch a page that breaks them", async ({ page }) => {
  await page.setViewportSize({ width: WIDTHS[0], height: 600 });
  await page.setContent(`
    <header><nav style="display:flex;flex-wrap:wrap;width:200px;padding:8px 0"><a style="white-space:nowrap">${"Section ".repeat(3)}</a><a style="white-space:nowrap">Another section</a><button style="width:40px">Sign out</button></nav></header>
    <div style="width:1500px">wider than the window</div>
    <div style="width:200px;overflow:hidden"><div style="width:400px">cut off</div></div>
    <span style="display:block;width:60px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis">a long run name without a tooltip</span>
    <svg width="100" height="50" viewBox="0 0 100 50"><text x="90" y="20">clipped label</text></svg>`);
  const problems = await page.evaluate(layoutProblems, { header: true });
  const expected = [/^the page is \d+ px wide in a 1280 px window$/, /^div ends at x = 1508 /, /cuts off 200 px of its content: "cut off"/, /shortens "a long run name without a tooltip" without a tooltip/, /the header wraps onto more than one row/, /the header item "Sign out" breaks over more than one line/, /the header is \d+ px high/, /the chart label "clipped label" .* is clipped/];
  for (const pattern of expected) expect(problems.some((p) => pattern.test(p)), `${pattern} among:\n${problems.join("\n")}`).toBe(true);
});

test("every page holds at 1280 and 1440 px: nothing past the right edge, a one-row header, whole chart labels, tooltips on shortened names, a favicon", async ({ page }) => {
  test.setTimeout(240_000);
  const notFound: string[] = [];
  const failed: string[] = [];
  const consoleErrors: string[] = [];
  page.on("response", (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  page.on("requestfailed", (request) => {
    // Leaving a page cancels what it was still loading.
    if (request.failure()?.errorText !== "net::ERR_ABORTED") failed.push(`${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });

  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  await checkAtEachWidth(page, { name: "sign-in", path: "/sign-in", header: false, ready: async (p) => expect(p.getByLabel("Email")).toBeVisible() });
  await signIn(page);

  // An import run of its own (the demo has none), while the demo's runs finish.
  const importFile = await upload(page.request, "layout.jsonl", `${[0, 1, 2].map((i) => JSON.stringify({ uid: i === 2 ? "layout-0" : `layout-${i}`, question: `What is ${i} + 1?`, steps: [`${i} + 1 = ${i + 1}`] })).join("\n")}\n`);
  const importRun = await mutate<{ runId: string }>(page.request, "import.start", { fileId: importFile, options: { format: "jsonl", mapping: { problem: "question", steps: "steps", id: "uid" }, datasetName: "Layout import", onInvalid: "skip", maxInvalidShare: 0.5 } });

  // The favicon: the icon the pages link resolves, and so does the address browsers ask for without a link.
  const icon = await page.evaluate(() => document.querySelector('head link[rel="icon"]')?.getAttribute("href") ?? null);
  expect.soft(icon, "the pages link an icon").toBeTruthy();
  for (const address of [icon ?? "/icon.svg", "/favicon.ico"]) {
    const response = await page.request.get(address);
    expect.soft(response.status(), address).toBe(200);
    expect.soft(response.headers()["content-type"], address).toContain("image/svg+xml");
  }

  // The demo's runs and queue, once (they finish about a minute after start-up).
  const datasets = await query<Array<{ id: string; name: string }>>(page.request, "dataset.list", undefined);
  const datasetId = datasets.find((d) => d.name === DEMO_DATASET)!.id;
  let runs: RunRow[] = [];
  let queueId = "";
  await expect(async () => {
    // The demo's own runs, by their names: other specs launch runs on the demo dataset too.
    runs = (await query<{ runs: RunRow[] }>(page.request, "run.list", { datasetId, pageSize: 50 })).runs.filter((r) => r.label.startsWith("Demo"));
    expect(runs.filter((r) => r.status === "completed").map((r) => r.kind).sort()).toEqual(["annotate", "benchmark", "benchmark", "judge", "judge"]);
    const queues = await query<Array<{ id: string; name: string; submissions: number }>>(page.request, "annotationQueue.listQueues", {});
    const queue = queues.find((q) => q.name === DEMO_QUEUE);
    // The demo annotators' eight (a spec before this one may have added its own).
    expect(queue?.submissions).toBeGreaterThanOrEqual(8);
    queueId = queue!.id;
  }).toPass({ timeout: 180_000, intervals: [2_000] });
  const run = (kind: string, part = "") => runs.find((r) => r.kind === kind && r.label.includes(part))!.id;
  const [annotate, benchmark, strong, weak] = [run("annotate"), run("benchmark"), run("judge", "strong"), run("judge", "weak")];
  await waitForRun(page.request, importRun.runId);
  // An item the demo annotators disagree on: its page offers adjudication.
  const { disagreements } = await query<{ disagreements: Array<{ itemId: string }> }>(page.request, "annotationQueue.agreement", { queueId });
  expect(disagreements.length, "items the demo annotators disagree on").toBeGreaterThan(0);
  const solutions = await query<{ items: Array<{ id: string; externalId: string }> }>(page.request, "solution.list", { datasetId });
  const solutionId = solutions.items.find((s) => s.externalId === "sim-2025-0")!.id;
  const compare = `/compare?dataset=${datasetId}&runs=${strong},${weak}&baseline=${weak}`;

  const heading = (text: string | RegExp) => async (p: Page) => expect(p.getByRole("heading", { name: text }).first()).toBeVisible();
  const testId = (id: string) => async (p: Page) => expect(p.getByTestId(id).first()).toBeVisible();
  const results = async (p: Page) => {
    await expect(p.getByRole("heading", { name: "Results", exact: true })).toBeVisible();
    await expect(p.getByText("Loading…")).toHaveCount(0);
  };
  const visits: Visit[] = [
    { name: "datasets", path: "/datasets", ready: async (p) => expect(p.getByRole("link", { name: DEMO_DATASET })).toBeVisible() },
    { name: "dataset-solutions", path: `/datasets/${datasetId}`, ready: async (p) => expect(p.getByRole("link", { name: "sim-2025-0", exact: true })).toBeVisible() },
    { name: "dataset-overview", path: `/datasets/${datasetId}/overview`, ready: async (p) => expect(p.locator("main .recharts-surface").first()).toBeVisible() },
    { name: "dataset-runs", path: `/datasets/${datasetId}/runs`, ready: heading("Run history") },
    { name: "runs", path: "/runs", ready: testId("runs-table") },
    { name: "run-new", path: `/runs/new?datasetId=${datasetId}`, ready: async (p) => expect(p.getByRole("form", { name: "Launch a run" })).toBeVisible() },
    { name: "run-annotate", path: `/runs/${annotate}`, ready: results },
    { name: "run-benchmark", path: `/runs/${benchmark}`, ready: results },
    { name: "run-judge", path: `/runs/${strong}`, ready: results },
    { name: "run-import", path: `/runs/${importRun.runId}`, ready: testId("import-report") },
    {
      name: "compare",
      path: compare,
      ready: testId("metrics-table"),
      // The per-subset table fits the page: no column hidden behind a sideways scroll.
      also: async (p) => {
        const table = await p.getByTestId("metrics-table").evaluate((t) => ({ table: Math.round(t.getBoundingClientRect().width), box: t.parentElement!.clientWidth }));
        expect.soft(table.table, "the per-subset table's width within its card").toBeLessThanOrEqual(table.box);
      },
    },
    { name: "compare-disagreements", path: `${compare}&tab=disagreements&a=${strong}&b=${weak}`, ready: testId("disagreements-total") },
    {
      name: "compare-item",
      ready: async (p) => {
        await p.getByTestId("disagreement-link").first().click();
        await expect(p.getByTestId("item-judgement").first()).toBeVisible();
      },
    },
    { name: "compare-calibration", path: `${compare}&tab=calibration&judge=${strong}&annotate=${annotate}`, ready: testId("calibration-ece") },
    { name: "compare-scaling", path: `${compare}&tab=scaling`, ready: testId("scaling-chart-k") },
    { name: "compare-three-way", path: `/compare?dataset=${datasetId}&tab=three-way&judge=${strong}&annotate=${annotate}&queue=${queueId}`, ready: testId("three-way-summary") },
    {
      name: "inspector",
      path: `/solutions/${solutionId}`,
      ready: async (p) => {
        const chunk = p.getByTestId("chunk").nth(1);
        // The demo's four judging runs at least (specs before this one may have judged the demo dataset too).
        await expect.poll(() => chunk.getByTestId("judge-cell").count()).toBeGreaterThanOrEqual(4);
        for (const cell of await chunk.getByTestId("judge-cell").all()) await cell.getByRole("button").click();
        await chunk.getByRole("button", { name: "rollouts" }).click();
        await expect(p.getByRole("region", { name: "Rollouts" }).getByRole("listitem").first()).toBeVisible();
      },
      also: async (p) => {
        // The rollouts open with their chunk, and the rationales use the chunk's full width.
        const chunk = p.getByTestId("chunk").nth(1);
        await expect(chunk.getByRole("region", { name: "Rollouts" })).toBeInViewport();
        const widths = await chunk.evaluate((c) => ({ chunk: c.getBoundingClientRect().width, rationale: c.querySelector('[data-testid="rationale"]')!.getBoundingClientRect().width }));
        expect.soft(widths.rationale, "a rationale's width against its chunk's").toBeGreaterThan(widths.chunk * 0.6);
      },
    },
    { name: "queues", path: "/annotation-queues", ready: testId("queue-row") },
    { name: "queue-new", path: `/annotation-queues/new?dataset=${datasetId}`, ready: heading("New annotation queue") },
    { name: "queue", path: `/annotation-queues/${queueId}`, ready: testId("cohen-kappa") },
    { name: "queue-annotate", path: `/annotation-queues/${queueId}/annotate`, ready: async (p) => expect(p.getByTestId("chunk").first().or(p.getByRole("alert")).or(p.getByText(/nothing|no more|done/i)).first()).toBeVisible() },
    { name: "queue-item", path: `/annotation-queues/${queueId}/items/${disagreements[0]!.itemId}`, ready: async (p) => expect(p.locator("main h1")).toBeVisible() },
    { name: "endpoints", path: "/endpoints", ready: heading("Endpoints") },
    { name: "exports", path: "/exports", ready: heading("Export runs") },
    { name: "tokens", path: "/settings/tokens", ready: heading("API tokens") },
    { name: "users", path: "/admin/users", ready: heading("Users") },
    { name: "audit", path: "/admin/audit", ready: heading("Audit log") },
  ];
  for (const visit of visits) await checkAtEachWidth(page, visit);

  expect(notFound, "requests answered 404").toEqual([]);
  expect(failed, "requests that failed").toEqual([]);
  expect(consoleErrors.filter((m) => m.includes("404")), "console errors about a 404").toEqual([]);
});
