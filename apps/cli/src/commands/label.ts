import { parseArgs } from "node:util";
import { applyLabelRule, firstErrorIndex } from "@stepwiser/core";
import { LABEL_RULE_FLAGS, parseRule } from "../input/label-rule";
import { numberFlag, numberListFlag } from "../input/numbers";
import { UsageError } from "../usage-error";

/**
 * `stepwiser label --rule R [--gamma x] [--alpha x] [--n k] [--evidence E] --q0 x --q x1,x2,…`:
 * `--q` are the Q-values after each chunk, the last one the solution's own outcome.
 */
export async function labelCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...LABEL_RULE_FLAGS,
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
