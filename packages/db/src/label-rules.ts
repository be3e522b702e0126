import type { StoredLabelRuleName } from "@stepwiser/core";
import type { LabelRule as DbLabelRule } from "./generated/prisma/client";

/**
 * The database enum `LabelRule` is core's stored spelling of the rules
 * (`STORED_LABEL_RULE_NAMES`): this is the one place the two meet, checked by
 * the compiler both ways, so a rule added to one and not the other fails the
 * type check.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const STORED_SPELLINGS_MATCH_DATABASE: Same<StoredLabelRuleName, DbLabelRule> = true;
