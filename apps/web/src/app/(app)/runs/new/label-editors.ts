/**
 * The structured editors of an annotate run's `labelRules` and `labelConfidence`: rows as
 * the form holds them (numbers as typed text), read back into the configuration with a
 * problem per field that cannot be read. Free of React so it can be tested alone.
 */
import { ABS_Q_EVIDENCE, CONFIDENCE_PRIORS, DEFAULT_ABS_Q_EPSILON, DEFAULT_LABEL_RULES, type AbsQEvidence, type ConfidencePrior } from "@stepwiser/core";
import type { FieldProblem } from "./schema-form";

export const LABEL_RULE_CHOICES = ["abs-q", "rel-ratio", "rel-effective"] as const;
export type LabelRuleChoice = (typeof LABEL_RULE_CHOICES)[number];
export const RULE_TITLES: Readonly<Record<LabelRuleChoice, string>> = { "abs-q": "Abs-Q", "rel-ratio": "Rel-Ratio", "rel-effective": "Rel-Effective" };
export const EVIDENCE_CHOICES = ABS_Q_EVIDENCE;
export const PRIOR_CHOICES = CONFIDENCE_PRIORS;

/** One rule as its row holds it: every parameter kept, so switching the rule and back loses nothing. */
export interface LabelRuleRow {
  rule: LabelRuleChoice;
  evidence: AbsQEvidence;
  gamma: string;
  alpha: string;
  n: string;
}

export interface LabelConfidenceDraft {
  prior: ConfidencePrior;
  absQEpsilon: string;
  zero: string;
  one: string;
  a: string;
  b: string;
}

/** A new row of a rule, at the paper's defaults. */
export function newRuleRow(rule: LabelRuleChoice = "abs-q"): LabelRuleRow {
  return {
    rule,
    evidence: DEFAULT_LABEL_RULES["abs-q"].evidence,
    gamma: String(DEFAULT_LABEL_RULES["rel-ratio"].gamma),
    alpha: String(DEFAULT_LABEL_RULES["rel-effective"].alpha),
    n: String(DEFAULT_LABEL_RULES["rel-effective"].n),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Rows of configured rules (the schema's default, a preset's); an entry of an unknown rule becomes an Abs-Q row. */
export function rowsFromRules(rules: unknown): LabelRuleRow[] {
  if (!Array.isArray(rules)) return [];
  return rules.map((entry) => {
    const row = newRuleRow();
    if (!isRecord(entry)) return row;
    if ((LABEL_RULE_CHOICES as readonly unknown[]).includes(entry.rule)) row.rule = entry.rule as LabelRuleChoice;
    if ((ABS_Q_EVIDENCE as readonly unknown[]).includes(entry.evidence)) row.evidence = entry.evidence as AbsQEvidence;
    for (const key of ["gamma", "alpha", "n"] as const) if (typeof entry[key] === "number") row[key] = String(entry[key]);
    return row;
  });
}

function readNumber(text: string, field: string, problems: FieldProblem[], integer = false): number | undefined {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === "" || !Number.isFinite(value)) {
    problems.push({ field, message: trimmed === "" ? "is required" : `"${trimmed}" is not a number` });
    return undefined;
  }
  if (integer && !Number.isInteger(value)) {
    problems.push({ field, message: `${trimmed} is not a whole number` });
    return undefined;
  }
  return value;
}

/**
 * The `labelRules` the rows say, with only each rule's own parameters; a parameter that
 * cannot be read is a problem at `labelRules.<row>.<parameter>` (ranges are the server's to check).
 */
export function rulesFromRows(rows: readonly LabelRuleRow[], field = "labelRules"): { rules: Array<Record<string, unknown>>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const rules = rows.map((row, i) => {
    const at = (name: string) => `${field}.${i}.${name}`;
    if (row.rule === "abs-q") return { rule: "abs-q", evidence: row.evidence };
    if (row.rule === "rel-ratio") return { rule: "rel-ratio", gamma: readNumber(row.gamma, at("gamma"), problems) };
    return { rule: "rel-effective", alpha: readNumber(row.alpha, at("alpha"), problems), n: readNumber(row.n, at("n"), problems, true) };
  });
  if (rows.length === 0) problems.push({ field, message: "needs at least one rule" });
  return { rules, problems };
}

/** The editor's starting values from a configured `labelConfidence` (the schema's default). */
export function confidenceDraft(options: unknown): LabelConfidenceDraft {
  const given = isRecord(options) ? options : {};
  const mixture = isRecord(given.mixture) ? given.mixture : {};
  const text = (value: unknown, fallback: string) => (typeof value === "number" ? String(value) : fallback);
  return {
    prior: (CONFIDENCE_PRIORS as readonly unknown[]).includes(given.prior) ? (given.prior as ConfidencePrior) : "jeffreys",
    absQEpsilon: text(given.absQEpsilon, String(DEFAULT_ABS_Q_EPSILON)),
    zero: text(mixture.zero, ""),
    one: text(mixture.one, ""),
    a: text(mixture.a, ""),
    b: text(mixture.b, ""),
  };
}

/** The `labelConfidence` the draft says: the mixture's parameters only with the mixture prior. */
export function confidenceFromDraft(draft: LabelConfidenceDraft, field = "labelConfidence"): { options: Record<string, unknown>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const options: Record<string, unknown> = { prior: draft.prior, absQEpsilon: readNumber(draft.absQEpsilon, `${field}.absQEpsilon`, problems) };
  if (draft.prior === "mixture") {
    options.mixture = Object.fromEntries((["zero", "one", "a", "b"] as const).map((name) => [name, readNumber(draft[name], `${field}.mixture.${name}`, problems)]));
  }
  return { options, problems };
}
