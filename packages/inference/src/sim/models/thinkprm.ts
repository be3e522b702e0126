import type { Label } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimGeneration, type SimSampleRequest } from "../model";
import { checkOf } from "./judge";
import type { ConfiguredSimModel } from "./kinds";
import { believeSteps, confidenceOf, decisionTop, protocolModelFields } from "./protocol-beliefs";
import { continueAnswer, judgeRng, promptParts } from "./prompt-text";

export const simThinkPrmConfigSchema = z.strictObject({ id: z.string().trim().min(1).default("sim-thinkprm"), ...protocolModelFields });
export type SimThinkPrmConfig = z.output<typeof simThinkPrmConfigSchema>;

const PROBLEM_LABEL = "[Math Problem]\n\n";
const SOLUTION_LABEL = "\n\n[Solution]\n\n";
const TAIL_START = "\n\nReview and critique each step in the proposed solution";
export const THINKPRM_VERIFY_PREFIX = "Let's verify step by step:";
export const THINKPRM_DECISION_QUESTION = "Is the solution correct?";

/** ThinkPRM's user message read back: the problem and the steps without their "Step i: " labels; null when it is not one. */
export function parseThinkPrmPrompt(text: string): { problem: string; steps: string[] } | null {
  const problemAt = text.indexOf(PROBLEM_LABEL);
  if (problemAt === -1) return null;
  const solutionAt = text.indexOf(SOLUTION_LABEL, problemAt);
  const tailAt = text.lastIndexOf(TAIL_START);
  if (solutionAt === -1 || tailAt < solutionAt) return null;
  const solution = text.slice(solutionAt + SOLUTION_LABEL.length, tailAt);
  const steps: string[] = [];
  let at = 0;
  for (let i = 1; at < solution.length; i++) {
    const label = `${i === 1 ? "" : "\n"}Step ${i}: `;
    if (!solution.startsWith(label, at)) return null;
    const start = at + label.length;
    const next = solution.indexOf(`\nStep ${i + 1}: `, start);
    const end = next === -1 ? solution.length : next;
    steps.push(solution.slice(start, end));
    at = end;
  }
  return { problem: text.slice(problemAt + PROBLEM_LABEL.length, solutionAt), steps };
}

/**
 * A simulated ThinkPRM verifier. To the verification request (the assistant
 * prefix "Let's verify step by step:") it writes, per step, a check and
 * "\boxed{correct}" or "\boxed{incorrect}", the verdicts reached with the
 * configured accuracy against the world's truth (the arithmetic check for other
 * text), stopping after its first "\boxed{incorrect}", then
 * "\nIs the solution correct? Yes|No"; with probability `unparseableRate` the
 * last step's verdict is written without its box. To the decision request
 * (prefix ending "Is the solution correct? ") it answers "yes" or "no", the
 * token's alternatives holding both with P(yes) near its accuracy when its
 * verification found no incorrect step, near 1 − accuracy otherwise.
 */
export function createSimThinkPrm(input: Partial<SimThinkPrmConfig> = {}): ConfiguredSimModel<"thinkprm", SimThinkPrmConfig> {
  const config = Object.freeze(simThinkPrmConfigSchema.parse(input));
  const generateDetailed = (request: SimSampleRequest): SimGeneration => {
    const parts = promptParts(request.prompt);
    const slots = parseThinkPrmPrompt(parts.instruction);
    if (!slots) throw new SimPromptError(`${config.id} expects ThinkPRM's verification prompt ([Math Problem] / [Solution] with "Step i:" steps)`);
    const rng = judgeRng(config.id, request);
    const partial = parts.partial ?? "";
    if (partial.trimEnd().endsWith(THINKPRM_DECISION_QUESTION)) {
      const verification = partial.replaceAll("\\boxed{\\text{", "\\boxed{");
      let leaning: Label;
      if (verification.includes("\\boxed{incorrect}")) leaning = "Negative";
      else if (verification.includes("\\boxed{correct}")) leaning = "Positive";
      else leaning = believeSteps(config, slots.problem, slots.steps, rng, true).some((belief) => belief.said === "Negative") ? "Negative" : "Positive";
      const confidence = confidenceOf(config, rng);
      const pYes = leaning === "Positive" ? confidence : 1 - confidence;
      const yes = request.temperature > 0 ? rng.nextFloat() < pYes : pYes >= 0.5;
      const word = yes ? "yes" : "no";
      const text = partial.endsWith(" ") ? word : ` ${word}`;
      return { text, decisions: [{ at: 0, token: text, top: decisionTop("yes", "no", pYes, ["Yes", "No"]).map((t) => ({ ...t, token: text.startsWith(" ") ? ` ${t.token}` : t.token })) }] };
    }
    const beliefs = believeSteps(config, slots.problem, slots.steps, rng, true);
    const unparseable = rng.nextFloat() < config.unparseableRate;
    const lines = beliefs.map((belief, i) => {
      const check = checkOf(belief.evidence, belief.said).replaceAll("chunk", "step");
      const word = belief.said === "Positive" ? "correct" : "incorrect";
      const verdict = unparseable && i === beliefs.length - 1 ? `The step is ${word}.` : `The step is \\boxed{${word}}`;
      return `\nStep ${i + 1}: ${check} ${verdict}`;
    });
    const allCorrect = beliefs.every((belief) => belief.said === "Positive");
    // ThinkPRM's prefix starts with a newline (helper.py writes "\nLet's verify step by step:"); a prefix without it still reads.
    const lead = parts.partial?.startsWith("\n") ? "\n" : "";
    const answer = `${lead}${THINKPRM_VERIFY_PREFIX}${lines.join("")}\n${THINKPRM_DECISION_QUESTION} ${allCorrect ? "Yes" : "No"}`;
    return { text: continueAnswer(answer, parts.partial, config.id), decisions: [] };
  };
  return { id: config.id, kind: "thinkprm", config, generate: (request) => generateDetailed(request).text, generateDetailed };
}
