import { labelRuleFromOptions, type LabelRule } from "@stepwiser/core";
import { UsageError } from "../usage-error";
import { numberFlag } from "./numbers";

/** The label-rule flags every command that names a rule takes. */
export const LABEL_RULE_FLAGS = {
  rule: { type: "string" },
  gamma: { type: "string" },
  alpha: { type: "string" },
  n: { type: "string" },
  evidence: { type: "string" },
} as const;

/**
 * `--rule R [--gamma x] [--alpha x] [--n k] [--evidence own-prefix|later-prefixes]`
 * as a label rule; a parameter left out takes the paper's default (core's DEFAULT_LABEL_RULES).
 */
export function parseRule(values: { rule?: string; gamma?: string; alpha?: string; n?: string; evidence?: string }): LabelRule {
  const optional = (flag: string, raw: string | undefined) => (raw === undefined ? undefined : numberFlag(flag, raw));
  try {
    return labelRuleFromOptions({
      rule: values.rule,
      gamma: optional("gamma", values.gamma),
      alpha: optional("alpha", values.alpha),
      n: optional("n", values.n),
      evidence: values.evidence,
    });
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`--${error.message}`);
    throw error;
  }
}
