import { STORED_LABEL_RULE_NAMES, type LabelRuleName, type StoredLabelRuleName } from "@stepwiser/core";
import type { LabelRule as DbLabelRule } from "./generated/prisma/client";

/**
 * The database enum `LabelRule` is core's stored spelling of the rules: this
 * is the one place the two meet, checked by the compiler both ways.
 */
export const DB_LABEL_RULES: Record<LabelRuleName, DbLabelRule> = STORED_LABEL_RULE_NAMES satisfies Record<LabelRuleName, DbLabelRule>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const spellingsMatch: Same<StoredLabelRuleName, DbLabelRule> = true;
void spellingsMatch;

export function dbLabelRule(rule: LabelRuleName): DbLabelRule {
  return DB_LABEL_RULES[rule];
}
