import type { RouterInputs } from "@stepwiser/api";

/** A list view's filters and sort, everything but the dataset and the page: what the URL carries. */
export type TrajectoryView = Omit<RouterInputs["trajectory"]["list"], "datasetId" | "page" | "pageSize">;

const STRING_KEYS = ["subset", "generator", "search", "annotateRunId", "judgeRunId"] as const;
const BOOLEAN_KEYS = ["correct", "hasError"] as const;
const NUMBER_KEYS = ["qMin", "qMax"] as const;
const SORTS = ["position", "externalId", "generator", "sourceFirstError", "qMin", "annotateFirstNegative", "judgeFirstNegative", "chunkCount"] as const;

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined;
}

/**
 * Reads a view from URL parameters. Unknown or malformed values are dropped
 * rather than sent on, so a hand-edited link degrades to a wider list instead
 * of an error; filters that need a run are dropped when the run is not chosen.
 */
export function readTrajectoryView(params: URLSearchParams): TrajectoryView {
  const view: Record<string, unknown> = {};
  for (const key of STRING_KEYS) {
    const value = params.get(key)?.trim();
    if (value) view[key] = value;
  }
  for (const key of BOOLEAN_KEYS) {
    const value = params.get(key);
    if (value === "true" || value === "false") view[key] = value === "true";
  }
  for (const key of NUMBER_KEYS) {
    const raw = params.get(key);
    const value = raw === null || raw === "" ? Number.NaN : Number(raw);
    if (Number.isFinite(value) && value >= 0 && value <= 1) view[key] = value;
  }
  const disagreement = oneOf(params.get("disagreement"), ["rules", "judge"]);
  const judgeVerdict = oneOf(params.get("judgeVerdict"), ["flagged", "clean"]);
  if (disagreement) view.disagreement = disagreement;
  if (judgeVerdict) view.judgeVerdict = judgeVerdict;
  const sort = oneOf(params.get("sort"), SORTS);
  if (sort) view.sort = sort;
  const order = oneOf(params.get("order"), ["asc", "desc"]);
  if (order) view.order = order;

  if (!view.annotateRunId) {
    delete view.qMin;
    delete view.qMax;
    if (view.sort === "qMin" || view.sort === "annotateFirstNegative") delete view.sort;
    delete view.disagreement;
  }
  if (!view.judgeRunId) {
    delete view.judgeVerdict;
    if (view.sort === "judgeFirstNegative") delete view.sort;
    if (view.disagreement === "judge") delete view.disagreement;
  }
  if (typeof view.qMin === "number" && typeof view.qMax === "number" && view.qMin > view.qMax) delete view.qMax;
  return view as TrajectoryView;
}

/** The URL parameters of a view (without the page), for links that keep it. */
export function viewSearchParams(params: URLSearchParams): URLSearchParams {
  const kept = new URLSearchParams(params.toString());
  kept.delete("page");
  return kept;
}
