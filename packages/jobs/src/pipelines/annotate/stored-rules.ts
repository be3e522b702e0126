import { labelRuleKey, labelRuleSchema, type LabelRule } from "@stepwiser/core";
import type { LabelRule as DbLabelRule } from "@stepwiser/db";
import { DB_RULE } from "./labels";

/** The rule names of the database enum, as the domain spells them (abs_q → abs-q). */
export const RULE_FROM_DB = Object.fromEntries(Object.entries(DB_RULE).map(([name, db]) => [db, name])) as Record<DbLabelRule, LabelRule["rule"]>;

/**
 * The label rule a stored (rule, paramsKey) pair stands for, or null when the
 * key does not parse as one (then it cannot be asked for in an export spec).
 */
export function labelRuleFromStored(rule: DbLabelRule, paramsKey: string): LabelRule | null {
  let params: unknown;
  try {
    params = JSON.parse(paramsKey);
  } catch {
    return null;
  }
  if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
  const parsed = labelRuleSchema.safeParse({ ...params, rule: RULE_FROM_DB[rule] });
  return parsed.success ? parsed.data : null;
}

/** "rel-ratio(gamma=0.7)" where the pair parses, else the raw pair. */
export function describeStoredRule(rule: DbLabelRule, paramsKey: string): string {
  const parsed = labelRuleFromStored(rule, paramsKey);
  return parsed ? labelRuleKey(parsed) : `${RULE_FROM_DB[rule] ?? rule} ${paramsKey}`;
}
