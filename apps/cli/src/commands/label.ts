import { applyLabelRule, firstErrorIndex, labelConfidences, type LabelRule } from "@stepwiser/core";
import { countsFlag } from "../input/counts";
import { CONFIDENCE_FLAGS, LABEL_RULE_FLAGS, parseConfidenceOptions, parseRule } from "../input/label-rule";
import { numberFlag, numberListFlag } from "../input/numbers";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

/**
 * `stepwiser label --rule R [--gamma x] [--alpha x] [--n k] [--evidence E] --q0 x --q x1,x2,…`:
 * `--q` are the Q-values after each chunk, the last one the solution's own outcome.
 * `… [--prior P] [--epsilon e] --counts s0/m0,s1/m1,…` instead labels the estimates
 * s_i/m_i and adds each label's confidence, every count taken as sampled.
 */
export async function labelCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("label", {
    args,
    options: {
      ...LABEL_RULE_FLAGS,
      ...CONFIDENCE_FLAGS,
      q0: { type: "string" },
      q: { type: "string" },
      counts: { type: "string" },
    },
  });
  const rule = parseRule(values);
  const options = parseConfidenceOptions(values, rule);
  if (values.counts !== undefined) {
    const other = values.q0 !== undefined ? "--q0" : values.q !== undefined ? "--q" : null;
    if (other) throw new UsageError(`--counts and ${other} cannot be given together: give rollout counts or Q-values, not both`);
    const counts = countsFlag("counts", values.counts);
    const q = counts.map(({ correct, rollouts }) => correct / rollouts);
    const labels = labelsOf(rule, q[0]!, q.slice(1));
    const confidence = labelConfidences(rule, labels, counts, options);
    process.stdout.write(`${JSON.stringify({ labels, first_error: firstErrorIndex(labels), confidence })}\n`);
    return;
  }
  const confidenceFlag = values.prior !== undefined ? "--prior" : values.epsilon !== undefined ? "--epsilon" : null;
  if (confidenceFlag) throw new UsageError(`${confidenceFlag} needs --counts: confidence is computed from rollout counts, not Q-values`);
  // Abs-Q never looks at Q_0, so it may be left out there.
  const q0 = numberFlag("q0", values.q0, rule.rule === "abs-q" ? 1 : undefined);
  const labels = labelsOf(rule, q0, numberListFlag("q", values.q));
  process.stdout.write(`${JSON.stringify({ labels, first_error: firstErrorIndex(labels) })}\n`);
}

function labelsOf(rule: LabelRule, q0: number, q: number[]) {
  try {
    return applyLabelRule(rule, q0, q);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}
