import type { Label } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimSampleRequest } from "../model";
import { tryParseProblem } from "../world";
import type { ConfiguredSimModel } from "./kinds";
import { believeLabel, findWorldProblem, protocolModelFields, solutionOutcome } from "./protocol-beliefs";
import { continueAnswer, judgeRng, promptParts } from "./prompt-text";

export const simOutcomeRmConfigSchema = z.strictObject({ id: z.string().trim().min(1).default("sim-outcome-rm"), ...protocolModelFields });
export type SimOutcomeRmConfig = z.output<typeof simOutcomeRmConfigSchema>;

const QUERY = "## Query\n\n";
const RESPONSES = "\n\n## Assistant responses\n\n### Assistant 1\n\n";
const SECOND = "\n\n\n### Assistant 2\n\n";
const ANALYSIS = "\n\n## Analysis";

/** The RRM pairwise prompt read back; null when the user message is not one. */
export function parsePairwisePrompt(text: string): { question: string; answers: [string, string] } | null {
  const queryAt = text.indexOf(QUERY);
  const responsesAt = text.indexOf(RESPONSES, queryAt);
  const analysisAt = text.lastIndexOf(ANALYSIS);
  if (queryAt === -1 || responsesAt === -1 || analysisAt < responsesAt) return null;
  const pair = text.slice(responsesAt + RESPONSES.length, analysisAt);
  const secondAt = pair.lastIndexOf(SECOND);
  if (secondAt === -1) return null;
  return { question: text.slice(queryAt + QUERY.length, responsesAt), answers: [pair.slice(0, secondAt), pair.slice(secondAt + SECOND.length)] };
}

const describe = (outcome: ReturnType<typeof solutionOutcome>, said: Label) =>
  outcome.finalAnswer !== null
    ? said === "Positive"
      ? `the steps follow from the problem and its final answer, ${outcome.finalAnswer}, holds up`
      : `its final answer, ${outcome.finalAnswer}, does not follow from the problem`
    : said === "Positive"
      ? "its calculations hold up"
      : "something in its calculations does not hold up";

/**
 * A simulated outcome reward model (a generative judge of whole solutions).
 * To the pointwise prompt (any wording that states a world problem on a line
 * of its own and then the solution) it writes a paragraph and "Score:
 * \boxed{n}": 7–10 when it believes the final answer right, 1–4 otherwise,
 * the belief being the world's truth with the configured accuracy (for other
 * text: whether every equation holds). To RRM's pairwise prompt it thinks
 * ("<think>…</think>") and boxes "Assistant 1" or "Assistant 2": when exactly
 * one answer is right it prefers that one with probability `accuracy`,
 * otherwise either at even odds. With probability `unparseableRate` it ends
 * without a readable box.
 */
export function createSimOutcomeRm(input: Partial<SimOutcomeRmConfig> = {}): ConfiguredSimModel<"outcome-rm", SimOutcomeRmConfig> {
  const config = Object.freeze(simOutcomeRmConfigSchema.parse(input));
  const answer = (request: SimSampleRequest): { text: string; partial: string | null } => {
    const parts = promptParts(request.prompt);
    const rng = judgeRng(config.id, request);
    const unparseable = rng.nextFloat() < config.unparseableRate;
    const pair = parsePairwisePrompt(parts.instruction);
    if (pair) {
      const problem = tryParseProblem(pair.question.trim()) ?? findWorldProblem(pair.question);
      const [first, second] = pair.answers.map((a) => solutionOutcome(problem, a)) as [ReturnType<typeof solutionOutcome>, ReturnType<typeof solutionOutcome>];
      let better: 1 | 2;
      if (first.label !== second.label) {
        const right: 1 | 2 = first.label === "Positive" ? 1 : 2;
        better = rng.nextFloat() < config.accuracy ? right : right === 1 ? 2 : 1;
      } else {
        better = rng.nextFloat() < 0.5 ? 1 : 2;
      }
      const saidOf = (n: 1 | 2): Label => (n === better ? "Positive" : "Negative");
      const thinking = `Assistant 1: ${describe(first, saidOf(1))}. Assistant 2: ${describe(second, saidOf(2))}. Assistant ${better} is better.`;
      const ending = unparseable ? "Both responses have merit." : `\\boxed{Assistant ${better}}`;
      return { text: `<think>\n${thinking}\n</think>\n\n${ending}`, partial: parts.partial };
    }
    const problem = findWorldProblem(parts.instruction);
    if (!problem && !/score/i.test(parts.instruction)) throw new SimPromptError(`${config.id} expects the pointwise outcome prompt (a problem, a solution, "Score: \\boxed{n}") or RRM's pairwise prompt`);
    const solutionText = problem ? parts.instruction.slice(parts.instruction.indexOf(problem.text) + problem.text.length) : parts.instruction;
    const outcome = solutionOutcome(problem, solutionText);
    const said = believeLabel(config, outcome.label, rng);
    const score = said === "Positive" ? 7 + rng.nextInt(4) : 1 + rng.nextInt(4);
    const paragraph = `I checked the solution step by step against the problem: ${describe(outcome, said)}.`;
    return { text: `${paragraph}\n\nScore: ${unparseable ? "\\boxed{high}" : `\\boxed{${score}}`}`, partial: parts.partial };
  };
  return {
    id: config.id,
    kind: "outcome-rm",
    config,
    generate(request) {
      const { text, partial } = answer(request);
      return continueAnswer(text, partial, config.id);
    },
  };
}
