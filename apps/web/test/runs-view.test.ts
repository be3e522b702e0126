import { describe, expect, it } from "vitest";
import { descriptionChange, draftOf } from "../src/app/(app)/runs/[id]/run-description-draft";
import { launchDescription } from "../src/app/(app)/runs/new/launch-description";
import {
  cancellable,
  CLEAR_FILTERS,
  compareTarget,
  filterChange,
  formatAverageF1,
  formatCost,
  formatDuration,
  formatMcAgreement,
  formatShare,
  formatTokens,
  hasFilters,
  progressPercent,
  readRunsView,
  runListInput,
  sortChange,
  toggledList,
} from "../src/app/(app)/runs/runs-view";

const read = (query: Record<string, string>) => readRunsView(new URLSearchParams(query));

describe("the Runs page's view in the URL", () => {
  it("reads every filter, the sort and the page", () => {
    const view = read({ q: " judge ", kind: "judge,benchmark", status: "running", dataset: "d1", model: "sim-judge-strong", tag: "baseline", by: "u1", from: "2026-11-01", to: "2026-11-30", sort: "cost", order: "asc", page: "3" });
    expect(view).toEqual({
      search: "judge",
      kinds: ["judge", "benchmark"],
      statuses: ["running"],
      datasetId: "d1",
      model: "sim-judge-strong",
      tag: "baseline",
      createdById: "u1",
      createdFrom: "2026-11-01",
      createdTo: "2026-11-30",
      includeDataJobs: false,
      sort: "cost",
      order: "asc",
      page: 3,
    });
    expect(runListInput(view)).toMatchObject({ kinds: ["judge", "benchmark"], statuses: ["running"], createdFrom: "2026-11-01", sort: "cost", order: "asc", page: 3, pageSize: 50 });
  });

  it("opens a hand-edited link: unknown kinds, statuses, sorts, bad days and pages are left out", () => {
    const view = read({ kind: "judge,critic,judge", status: "done", sort: "speed", from: "1/11/2026", page: "-2" });
    expect(view).toMatchObject({ kinds: ["judge"], statuses: [], sort: "createdAt", order: "desc", page: 1, createdFrom: undefined });
    expect(hasFilters(view)).toBe(true);
    expect(hasFilters(read({ sort: "name" }))).toBe(false);
    expect(runListInput(read({}))).toMatchObject({ kinds: undefined, statuses: undefined, sort: "createdAt", order: "desc", page: 1 });
  });

  it("flips the order on the sorted column and starts another column at its own default, back on page 1", () => {
    expect(sortChange(read({}), "createdAt")).toEqual({ sort: undefined, order: "asc", page: undefined });
    expect(sortChange(read({ order: "asc" }), "createdAt")).toEqual({ sort: undefined, order: undefined, page: undefined });
    expect(sortChange(read({ page: "4" }), "name")).toEqual({ sort: "name", order: undefined, page: undefined });
    expect(read({ sort: "name" }).order).toBe("asc");
    expect(sortChange(read({ sort: "name" }), "name")).toEqual({ sort: "name", order: "desc", page: undefined });
    expect(sortChange(read({}), "cost")).toEqual({ sort: "cost", order: undefined, page: undefined });
  });

  it("hides data jobs unless data=1, which counts as a filter that clearing removes", () => {
    expect(runListInput(read({})).includeDataJobs).toBe(false);
    const view = read({ data: "1" });
    expect(runListInput(view).includeDataJobs).toBe(true);
    expect(hasFilters(view)).toBe(true);
    expect(read({ data: "yes" }).includeDataJobs).toBe(false);
    expect(CLEAR_FILTERS).toHaveProperty("data", undefined);
  });

  it("sorts result columns highest first by default, and flips them", () => {
    expect(read({ sort: "averageF1" })).toMatchObject({ sort: "averageF1", order: "desc" });
    expect(sortChange(read({ sort: "averageF1" }), "averageF1")).toEqual({ sort: "averageF1", order: "asc", page: undefined });
    expect(runListInput(read({ sort: "labelBalance", order: "asc" }))).toMatchObject({ sort: "labelBalance", order: "asc" });
    expect(read({ sort: "mcAgreement" })).toMatchObject({ sort: "mcAgreement", order: "desc" });
    expect(sortChange(read({}), "mcAgreement")).toEqual({ sort: "mcAgreement", order: undefined, page: undefined });
    expect(runListInput(read({ sort: "mcAgreement", order: "asc" }))).toMatchObject({ sort: "mcAgreement", order: "asc" });
  });

  it("toggles one value of a multi-valued filter, and any filter change goes back to page 1", () => {
    expect(toggledList(["judge"], "benchmark", true)).toBe("judge,benchmark");
    expect(toggledList(["judge"], "judge", true)).toBe("judge");
    expect(toggledList(["judge"], "judge", false)).toBeUndefined();
    expect(filterChange({ tag: "paper" })).toEqual({ tag: "paper", page: undefined });
  });
});

describe("Runs page cells", () => {
  it("formats tokens compactly", () => {
    expect([0, 9_999, 12_345, 123_456, 4_560_000, 250_000_000].map(formatTokens)).toEqual(["0", "9,999", "12.3k", "123k", "4.56M", "250M"]);
  });

  it("shows a cost in dollars, or a dash with the reason", () => {
    expect(formatCost({ usd: 1.9, reason: null }).text).toBe("$1.90");
    expect(formatCost({ usd: 1234.5, reason: null }).text).toBe("$1,235");
    expect(formatCost({ usd: 0.004, reason: null }).text).toBe("<$0.01");
    expect(formatCost({ usd: 0, reason: null }).text).toBe("$0");
    expect(formatCost({ usd: null, reason: "tokens of two endpoints are counted together" })).toEqual({ text: "—", title: "tokens of two endpoints are counted together" });
  });

  it("shows durations, shares and average F1s, a partial average saying so and over what", () => {
    expect([42.4, 185, 7620].map(formatDuration)).toEqual(["42 s", "3 min 05 s", "2 h 07 min"]);
    expect(formatShare(0.625)).toBe("63%");
    expect(formatAverageF1({ value: 0.6189, partial: false, subsets: ["gsm8k", "math", "olympiadbench", "omnimath"] }).text).toBe("0.619");
    const partial = formatAverageF1({ value: 0.62, partial: true, subsets: ["gsm8k", "math"] });
    expect(partial.text).toBe("0.620 (partial)");
    expect(partial.title).toContain("the subsets gsm8k, math");
  });

  it("shows a judge's agreement with Monte-Carlo labels as a percent, naming the annotate run and rule it is with", () => {
    const shown = formatMcAgreement({ value: 0.8125, run: { name: "annotate · sim-policy · M=4" }, rule: "rel-ratio(gamma=0.7)" });
    expect(shown.text).toBe("81%");
    expect(shown.title).toBe("Judged chunks whose majority verdict equals the Monte-Carlo label of annotate · sim-policy · M=4 under rel-ratio(gamma=0.7)");
    expect(formatMcAgreement({ value: 1, run: { name: "labels" }, rule: null })).toEqual({ text: "100%", title: "Judged chunks whose majority verdict equals the Monte-Carlo label of labels under its first label rule" });
  });

  it("gives progress as a whole percent, none before the plan", () => {
    expect(progressPercent({ unitsDone: 0, unitsTotal: 0 })).toBeNull();
    expect(progressPercent({ unitsDone: 1, unitsTotal: 3 })).toBe(33);
    expect(progressPercent({ unitsDone: 5, unitsTotal: 4 })).toBe(100);
  });
});

describe("actions on a selection of runs", () => {
  const judge = (id: string, datasetId: string | null = "d1") => ({ id, kind: "judge", datasetId });
  it("compares two or more benchmark or judge runs of one dataset", () => {
    expect(compareTarget([judge("a"), { id: "b", kind: "benchmark", datasetId: "d1" }])).toEqual({ href: "/compare?dataset=d1&runs=a%2Cb", problem: null });
    expect(compareTarget([judge("a")]).problem).toMatch(/two or more/);
    expect(compareTarget([judge("a"), { id: "b", kind: "chunk_reset", datasetId: "d1" }]).problem).toMatch(/also holds chunk-reset runs/);
    expect(compareTarget([judge("a"), judge("b", "d2")]).problem).toMatch(/over 2 datasets/);
    expect(compareTarget([judge("a"), judge("b", null)]).problem).toMatch(/no dataset/);
  });

  it("cancels only the queued and running runs", () => {
    expect(cancellable([{ id: "a", status: "running" }, { id: "b", status: "completed" }, { id: "c", status: "queued" }])).toEqual({ ids: ["a", "c"], others: 1 });
  });
});

describe("a run's name, tags and notes as forms send them", () => {
  const run = { name: "judge · sim · K=3", tags: ["baseline"], notes: "" };
  it("sends only what changed; an emptied name asks for the generated one", () => {
    expect(descriptionChange(run, draftOf(run))).toEqual({});
    expect(descriptionChange(run, { ...draftOf(run), name: "  strong judge  ", tags: "baseline, paper , ", notes: "**why**" })).toEqual({ name: "strong judge", tags: ["baseline", "paper"], notes: "**why**" });
    expect(descriptionChange(run, { ...draftOf(run), name: " " })).toEqual({ name: null });
    expect(descriptionChange(run, { ...draftOf(run), tags: "" })).toEqual({ tags: [] });
  });

  it("leaves the launch form's empty fields out", () => {
    expect(launchDescription({ name: " ", tags: " , ", notes: "  " })).toEqual({});
    expect(launchDescription({ name: " pilot ", tags: "a, b", notes: "x" })).toEqual({ name: "pilot", tags: ["a", "b"], notes: "x" });
  });
});
