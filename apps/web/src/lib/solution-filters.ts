import type { RouterInputs } from "@stepwiser/api";
import { describeStoredLabelRule, STORED_LABEL_RULE_VALUES } from "@stepwiser/core";

/** A list view's filters and sort, everything but the dataset and the page: what the URL carries. */
export type SolutionView = Omit<RouterInputs["solution"]["list"], "datasetId" | "page" | "pageSize">;

const STRING_KEYS = ["subset", "generator", "search", "annotateRunId", "judgeRunId"] as const;
const BOOLEAN_KEYS = ["correct", "hasError"] as const;
const NUMBER_KEYS = ["qMin", "qMax", "maxConfidence"] as const;
const SORTS = ["position", "externalId", "generator", "sourceFirstError", "qMin", "annotateFirstNegative", "judgeFirstNegative", "chunkCount", "lowestConfidence"] as const;

/** A stored label rule as the view holds it. */
export type ConfidenceRule = NonNullable<SolutionView["confidenceRule"]>;

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined;
}

/**
 * Reads a view from URL parameters. Unknown or malformed values are dropped
 * rather than sent on, so a hand-edited link degrades to a wider list instead
 * of an error; filters that need a run are dropped when the run is not chosen.
 */
export function readSolutionView(params: URLSearchParams): SolutionView {
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
  // The confidence rule travels as two parameters: the stored rule name and its parameters key.
  const rule = oneOf(params.get("confidenceRule"), STORED_LABEL_RULE_VALUES);
  const paramsKey = params.get("confidenceParams")?.trim();
  if (rule && paramsKey) view.confidenceRule = { rule, paramsKey };
  const sort = oneOf(params.get("sort"), SORTS);
  if (sort) view.sort = sort;
  const order = oneOf(params.get("order"), ["asc", "desc"]);
  if (order) view.order = order;

  if (!view.annotateRunId) {
    delete view.qMin;
    delete view.qMax;
    delete view.confidenceRule;
    if (view.sort === "qMin" || view.sort === "annotateFirstNegative") delete view.sort;
    delete view.disagreement;
  }
  if (!view.judgeRunId) {
    delete view.judgeVerdict;
    if (view.sort === "judgeFirstNegative") delete view.sort;
    if (view.disagreement === "judge") delete view.disagreement;
  }
  if (!view.confidenceRule) {
    delete view.maxConfidence;
    if (view.sort === "lowestConfidence") delete view.sort;
  }
  if (typeof view.qMin === "number" && typeof view.qMax === "number" && view.qMin > view.qMax) delete view.qMax;
  return view as SolutionView;
}

/** A confidence rule as one picker value, and back: the stored rule and its parameters key, joined by "|". */
export function confidenceRuleValue(rule: { rule: string; paramsKey: string } | undefined): string {
  return rule ? `${rule.rule}|${rule.paramsKey}` : "";
}

export function parseConfidenceRuleValue(value: string | undefined): ConfidenceRule | undefined {
  const bar = value?.indexOf("|") ?? -1;
  if (!value || bar < 0) return undefined;
  const rule = oneOf(value.slice(0, bar), STORED_LABEL_RULE_VALUES);
  const paramsKey = value.slice(bar + 1);
  return rule && paramsKey ? { rule, paramsKey } : undefined;
}

/** The picker's options for an annotate run's label rules ("" = none), each named as the rule reads, e.g. "rel-ratio(gamma=0.7)". */
export function confidenceRuleOptions(rules: readonly { rule: string; paramsKey: string }[]): [string, string][] {
  return [["", "None"], ...rules.map((r): [string, string] => [confidenceRuleValue(r), describeStoredLabelRule(r.rule, r.paramsKey)])];
}

/** The URL parameters of a confidence rule (both cleared for none). */
export function confidenceRuleParams(rule: ConfidenceRule | undefined): { confidenceRule: string | undefined; confidenceParams: string | undefined } {
  return { confidenceRule: rule?.rule, confidenceParams: rule?.paramsKey };
}

/** A view's filters in words, e.g. "annotateRunId = r1, confidenceRule = rel-ratio(gamma=0.7), maxConfidence = 0.6". */
export function describeView(view: SolutionView): string {
  return Object.entries(view)
    .map(([key, value]) => {
      if (key === "confidenceRule" && value && typeof value === "object") {
        const { rule, paramsKey } = value as ConfidenceRule;
        return `${key} = ${describeStoredLabelRule(rule, paramsKey)}`;
      }
      return `${key} = ${String(value)}`;
    })
    .join(", ");
}

/** The URL parameters of a view (without the page), for links that keep it. */
export function viewSearchParams(params: URLSearchParams): URLSearchParams {
  const kept = new URLSearchParams(params.toString());
  kept.delete("page");
  return kept;
}
