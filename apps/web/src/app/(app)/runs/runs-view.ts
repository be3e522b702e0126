/**
 * The Runs page's view, all of it in the URL so a reload or a shared link shows
 * the same list: `/runs?q=…&kind=judge,benchmark&status=running&dataset=…&model=…
 * &tag=…&by=…&from=2026-11-01&to=2026-11-30&data=1&sort=averageF1&order=asc&page=2`
 * (`data=1`: data jobs, imports and exports, listed too).
 * Pure functions, no React: unit-tested in apps/web/test/runs-view.test.ts.
 */

export const RUN_KINDS = ["import", "generate", "segment", "annotate", "judge", "benchmark", "chunk_reset", "best_of_n", "export"] as const;
export type RunKindName = (typeof RUN_KINDS)[number];
export const RUN_STATUSES = ["queued", "running", "completed", "completed_with_failures", "failed", "cancelled"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];
export const RUN_SORTS = ["createdAt", "name", "tokens", "cost", "status", "duration", "averageF1", "prmscore", "negativeShare", "labelBalance", "meanConfidence", "mcAgreement"] as const;
export type RunSort = (typeof RUN_SORTS)[number];

export const RUNS_PAGE_SIZE = 50;

export interface RunsView {
  search?: string;
  kinds: RunKindName[];
  statuses: RunStatusName[];
  datasetId?: string;
  model?: string;
  tag?: string;
  createdById?: string;
  createdFrom?: string;
  createdTo?: string;
  /** Data jobs (import and export runs) listed too; they are hidden otherwise, unless a kind filter names theirs. */
  includeDataJobs: boolean;
  sort: RunSort;
  order: "asc" | "desc";
  page: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Values of a comma-separated key that are among `allowed`, each once, in the order given. */
function listOf<T extends string>(raw: string | null, allowed: readonly T[]): T[] {
  const values = (raw ?? "").split(",").map((v) => v.trim());
  return [...new Set(values.filter((v): v is T => (allowed as readonly string[]).includes(v)))];
}

/** The view a URL describes; unknown or malformed values are left out (a hand-edited link still opens). */
export function readRunsView(params: { get(key: string): string | null }): RunsView {
  const text = (key: string) => params.get(key)?.trim() || undefined;
  const day = (key: string) => {
    const value = text(key);
    return value && DAY.test(value) ? value : undefined;
  };
  const sort = RUN_SORTS.find((s) => s === text("sort")) ?? "createdAt";
  const page = Number(text("page") ?? "1");
  return {
    search: text("q"),
    kinds: listOf(params.get("kind"), RUN_KINDS),
    statuses: listOf(params.get("status"), RUN_STATUSES),
    datasetId: text("dataset"),
    model: text("model"),
    tag: text("tag"),
    createdById: text("by"),
    createdFrom: day("from"),
    createdTo: day("to"),
    includeDataJobs: text("data") === "1",
    sort,
    order: text("order") === "asc" ? "asc" : text("order") === "desc" ? "desc" : defaultOrder(sort),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** Newest, most tokens, most expensive, longest and highest-scoring first; names and statuses from the top of their order. */
export function defaultOrder(sort: RunSort): "asc" | "desc" {
  return sort === "name" || sort === "status" ? "asc" : "desc";
}

/** The `run.list` input of a view. */
export function runListInput(view: RunsView) {
  return {
    search: view.search,
    kinds: view.kinds.length ? view.kinds : undefined,
    statuses: view.statuses.length ? view.statuses : undefined,
    datasetId: view.datasetId,
    model: view.model,
    tag: view.tag,
    createdById: view.createdById,
    createdFrom: view.createdFrom,
    createdTo: view.createdTo,
    includeDataJobs: view.includeDataJobs,
    sort: view.sort,
    order: view.order,
    page: view.page,
    pageSize: RUNS_PAGE_SIZE,
  };
}

/** URL changes for a changed filter: any filter change goes back to the first page. */
export function filterChange(changes: Record<string, string | undefined>): Record<string, string | undefined> {
  return { ...changes, page: undefined };
}

/** The URL changes of a click on a sort header: the same column flips its order, another starts at its default order. */
export function sortChange(view: RunsView, sort: RunSort): Record<string, string | undefined> {
  const order = view.sort === sort ? (view.order === "asc" ? "desc" : "asc") : defaultOrder(sort);
  return { sort: sort === "createdAt" ? undefined : sort, order: order === defaultOrder(sort) ? undefined : order, page: undefined };
}

/** One value of a multi-valued filter switched on or off, as the URL keeps it. */
export function toggledList<T extends string>(values: readonly T[], value: T, on: boolean): string | undefined {
  const next = on ? [...new Set([...values, value])] : values.filter((v) => v !== value);
  return next.length ? next.join(",") : undefined;
}

/** Whether any filter is set (the page offers to clear them). */
export function hasFilters(view: RunsView): boolean {
  return Boolean(view.search || view.kinds.length || view.statuses.length || view.datasetId || view.model || view.tag || view.createdById || view.createdFrom || view.createdTo || view.includeDataJobs);
}

/** The URL changes that clear every filter and keep the sort. */
export const CLEAR_FILTERS: Record<string, undefined> = { q: undefined, kind: undefined, status: undefined, dataset: undefined, model: undefined, tag: undefined, by: undefined, from: undefined, to: undefined, data: undefined, page: undefined };

/** Tokens as a list shows them: 1,234 · 12.3k · 4.56M. */
export function formatTokens(tokens: number): string {
  if (tokens < 10_000) return tokens.toLocaleString("en-US");
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(tokens < 100_000_000 ? 2 : 0)}M`;
}

/** A cost cell: the amount, or "—" with why there is none. */
export function formatCost(cost: { usd: number; reason: null } | { usd: null; reason: string }): { text: string; title: string | undefined } {
  if (cost.usd === null) return { text: "—", title: cost.reason };
  const usd = cost.usd;
  const text = usd === 0 ? "$0" : usd < 0.01 ? "<$0.01" : `$${usd.toLocaleString("en-US", usd < 100 ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : { maximumFractionDigits: 0 })}`;
  return { text, title: `$${usd.toPrecision(4)} at the endpoint's prices when the run was launched` };
}

/** How long a run took: 42 s · 3 min 05 s · 2 h 07 min. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")} min`;
}

/** A share as a whole percent: 0.625 → "63%". */
export function formatShare(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** An "Agreement with MC" cell: the share as a percent, and which annotate run's labels under which rule it is with. */
export function formatMcAgreement(agreement: { value: number; run: { name: string }; rule: string | null }): { text: string; title: string } {
  const rule = agreement.rule ?? "its first label rule";
  return {
    text: formatShare(agreement.value),
    title: `Judged chunks whose majority verdict equals the Monte-Carlo label of ${agreement.run.name} under ${rule}`,
  };
}

/** An average F1 cell: three decimals, "(partial)" with the subsets it is over unless it is over ProcessBench's four. */
export function formatAverageF1(f1: { value: number; partial: boolean; subsets: readonly string[] }): { text: string; title: string } {
  const value = f1.value.toFixed(3);
  if (!f1.partial) return { text: value, title: "ProcessBench's average F1 over its four subsets" };
  const over = f1.subsets.length ? `the subset${f1.subsets.length === 1 ? "" : "s"} ${f1.subsets.join(", ")}` : "subsets its summary does not name";
  return { text: `${value} (partial)`, title: `A partial average: over ${over}, not ProcessBench's four (gsm8k, math, olympiadbench, omnimath)` };
}

/** A run's progress as a whole percent, or null while its plan is not known. */
export function progressPercent(run: { unitsDone: number; unitsTotal: number }): number | null {
  if (run.unitsTotal <= 0) return null;
  return Math.floor((100 * Math.min(run.unitsDone, run.unitsTotal)) / run.unitsTotal);
}

/** What a selection needs to be compared. */
export interface SelectedRun {
  id: string;
  kind: string;
  datasetId: string | null;
}

const COMPARABLE_KINDS: ReadonlySet<string> = new Set(["benchmark", "judge"]);

/**
 * Where "Compare" goes for the selected runs: Compare with them chosen
 * (`/compare?dataset=…&runs=a,b`), or why they cannot be compared.
 */
export function compareTarget(selected: readonly SelectedRun[]): { href: string; problem: null } | { href: null; problem: string } {
  if (selected.length < 2) return { href: null, problem: "Select two or more benchmark or judge runs of one dataset to compare them." };
  const others = selected.filter((run) => !COMPARABLE_KINDS.has(run.kind));
  if (others.length > 0) {
    const kinds = [...new Set(others.map((run) => run.kind.replaceAll("_", "-")))].join(", ");
    return { href: null, problem: `Only benchmark and judge runs can be compared; the selection also holds ${kinds} runs.` };
  }
  const datasets = new Set(selected.map((run) => run.datasetId));
  if (datasets.has(null)) return { href: null, problem: "A selected run has no dataset (it was deleted), so it cannot be compared." };
  if (datasets.size > 1) return { href: null, problem: `The selected runs are over ${datasets.size} datasets; Compare takes runs of one dataset.` };
  const params = new URLSearchParams({ dataset: selected[0]!.datasetId!, runs: selected.map((run) => run.id).join(",") });
  return { href: `/compare?${params.toString()}`, problem: null };
}

/** The selected runs a cancel applies to (queued or running), and how many it leaves out. */
export function cancellable<T extends { id: string; status: string }>(selected: readonly T[]): { ids: string[]; others: number } {
  const ids = selected.filter((run) => run.status === "queued" || run.status === "running").map((run) => run.id);
  return { ids, others: selected.length - ids.length };
}
