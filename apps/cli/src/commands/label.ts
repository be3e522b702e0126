import { parseArgs } from "node:util";
import { applyLabelRule, DEFAULT_LABEL_RULES, firstErrorIndex, type LabelRule } from "@stepwiser/core";
import { numberFlag, numberListFlag } from "../input/numbers";
import { UsageError } from "../usage-error";

/** `stepwiser label --rule R [--gamma x] [--alpha x] [--n k] --q0 x --q x1,x2,…` */
export async function labelCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rule: { type: "string" },
      gamma: { type: "string" },
      alpha: { type: "string" },
      n: { type: "string" },
      q0: { type: "string" },
      q: { type: "string" },
    },
  });
  const rule = parseRule(values);
  // Abs-Q never looks at Q_0, so it may be left out there.
  const q0 = numberFlag("q0", values.q0, rule.rule === "abs-q" ? 1 : undefined);
  const q = numberListFlag("q", values.q);
  let labels;
  try {
    labels = applyLabelRule(rule, q0, q);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
  process.stdout.write(`${JSON.stringify({ labels, first_error: firstErrorIndex(labels) })}\n`);
}

export function parseRule(values: { rule?: string; gamma?: string; alpha?: string; n?: string }): LabelRule {
  switch (values.rule) {
    case "abs-q":
      return { rule: "abs-q" };
    case "rel-ratio":
      return { rule: "rel-ratio", gamma: numberFlag("gamma", values.gamma, DEFAULT_LABEL_RULES["rel-ratio"].gamma) };
    case "rel-effective": {
      const n = numberFlag("n", values.n, DEFAULT_LABEL_RULES["rel-effective"].n);
      if (!Number.isInteger(n) || n < 1) throw new UsageError(`--n must be a positive integer, got "${values.n}"`);
      return { rule: "rel-effective", alpha: numberFlag("alpha", values.alpha, DEFAULT_LABEL_RULES["rel-effective"].alpha), n };
    }
    case undefined:
      throw new UsageError("--rule is required: abs-q, rel-ratio or rel-effective");
    default:
      throw new UsageError(`--rule must be abs-q, rel-ratio or rel-effective, got "${values.rule}"`);
  }
}
