import {
  CONFIDENCE_PRIORS,
  labelConfidenceOptionsSchema,
  labelRuleFromOptions,
  RULE_PARAMETERS,
  type ConfidencePrior,
  type LabelConfidenceOptions,
  type LabelRule,
} from "@stepwiser/core";
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

/** The flags of label confidence (`stepwiser label --counts`). */
export const CONFIDENCE_FLAGS = {
  prior: { type: "string" },
  epsilon: { type: "string" },
  mixture: { type: "string" },
} as const;

/**
 * `[--prior jeffreys|uniform|mixture [--mixture JSON]] [--epsilon e]` as
 * confidence options, defaults from core. `--epsilon` is Abs-Q's ε, so with
 * another rule it is refused as `--gamma` is with Abs-Q. `--mixture` takes the
 * object `stepwiser prior fit` prints (its zero, one, a and b are read).
 */
export function parseConfidenceOptions(values: { prior?: string; epsilon?: string; mixture?: string }, rule: LabelRule): LabelConfidenceOptions {
  if (values.epsilon !== undefined && rule.rule !== "abs-q") {
    throw new UsageError(`--epsilon is not a parameter of ${rule.rule} (its parameters: ${RULE_PARAMETERS[rule.rule].join(", ")}); it is abs-q's ε`);
  }
  const { prior } = values;
  if (prior !== undefined && !(CONFIDENCE_PRIORS as readonly string[]).includes(prior)) {
    throw new UsageError(`--prior must be ${CONFIDENCE_PRIORS.join(", ")}, got "${prior}"`);
  }
  if (prior === "mixture" && values.mixture === undefined) throw new UsageError(`--prior mixture needs --mixture '{"zero":…,"one":…,"a":…,"b":…}' (as \`stepwiser prior fit --run RUN\` prints it)`);
  if (prior !== "mixture" && values.mixture !== undefined) throw new UsageError("--mixture is read only with --prior mixture");
  let mixture: unknown;
  if (values.mixture !== undefined) {
    try {
      const parsed = JSON.parse(values.mixture) as Record<string, unknown>;
      mixture = typeof parsed === "object" && parsed !== null ? { zero: parsed.zero, one: parsed.one, a: parsed.a, b: parsed.b } : parsed;
    } catch {
      throw new UsageError(`--mixture must be a JSON object {"zero", "one", "a", "b"}, got "${values.mixture}"`);
    }
  }
  const epsilon = values.epsilon === undefined ? undefined : numberFlag("epsilon", values.epsilon);
  if (epsilon !== undefined && !(epsilon > 0 && epsilon < 1)) throw new UsageError(`--epsilon must be between 0 and 1 (both excluded), got "${values.epsilon}"`);
  const parsed = labelConfidenceOptionsSchema.safeParse({ prior: prior as ConfidencePrior | undefined, absQEpsilon: epsilon, mixture });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`--mixture: ${issue.path.slice(1).join(".") || "value"}: ${issue.message}`);
  }
  return parsed.data;
}
