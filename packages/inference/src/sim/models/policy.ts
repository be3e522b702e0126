import { CHUNK_OPEN_TAG } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimSampleRequest } from "../model";
import { continueSolution, parseProblemAtStart, tryParseProblem, WorldParseError, type ArithProblem } from "../world";
import type { ConfiguredSimModel } from "./kinds";
import { promptParts, sampleRng } from "./prompt-text";

const rate = z.number().min(0).max(1);

export const simPolicyConfigSchema = z.strictObject({
  id: z.string().trim().min(1).default("sim-policy"),
  /** p: probability that a step from a right running value makes an error. */
  errorRate: rate.default(0.15),
  /** q: probability that a step from a wrong running value recovers the right one. */
  recoveryRate: rate.default(0.1),
});
export type SimPolicyConfig = z.output<typeof simPolicyConfigSchema>;
export type SimPolicyConfigInput = z.input<typeof simPolicyConfigSchema>;

/** "Problem: " at the start of a line, as the self-segmenting policy prompt ends. */
const PROBLEM_MARKER = /(?:^|\n)Problem: /g;

function afterLastProblemMarker(text: string): string | null {
  let after: number | null = null;
  for (const match of text.matchAll(PROBLEM_MARKER)) after = match.index + match[0].length;
  return after === null ? null : text.slice(after);
}

/**
 * Where a raw completion prompt's partial solution starts: at its first
 * `<chunk>`, or at a cut-off opening tag at the very end. Anything between the
 * problem and that point (a newline, chat-template tokens) is not part of it.
 */
function partialSolutionOf(rest: string): string {
  const open = rest.indexOf(CHUNK_OPEN_TAG);
  if (open !== -1) return rest.slice(open);
  const trimmed = rest.trimEnd();
  const lastAngle = trimmed.lastIndexOf("<");
  if (lastAngle !== -1 && CHUNK_OPEN_TAG.startsWith(trimmed.slice(lastAngle))) return trimmed.slice(lastAngle);
  return "";
}

/** The problem and the partial solution (possibly empty) in a policy prompt. */
export function readPolicyPrompt(request: SimSampleRequest): { problem: ArithProblem; partialSolution: string } {
  const parts = promptParts(request.prompt);
  const afterMarker = afterLastProblemMarker(parts.instruction);
  if (afterMarker === null) throw new SimPromptError('sim-policy expects the self-segmenting policy prompt ("Problem: {problem}" not found)');
  if (parts.kind === "chat") {
    const problem = tryParseProblem(afterMarker.trim());
    if (!problem) throw new SimPromptError("sim-policy only solves problems of its own arithmetic world; this problem is not one");
    return { problem, partialSolution: parts.partial ?? "" };
  }
  const found = parseProblemAtStart(afterMarker.trimStart());
  if (!found) throw new SimPromptError("sim-policy only solves problems of its own arithmetic world; this problem is not one");
  return { problem: found.problem, partialSolution: partialSolutionOf(found.rest) };
}

/**
 * The simulated self-segmenting policy: solves arithmetic-world problems
 * chunk by chunk with errors and recoveries (see ../world/index.ts), or
 * continues a partial solution from the state it has written.
 */
export function createSimPolicy(input: SimPolicyConfigInput = {}): ConfiguredSimModel<"policy", SimPolicyConfig> {
  const config = Object.freeze(simPolicyConfigSchema.parse(input));
  const rates = { errorRate: config.errorRate, recoveryRate: config.recoveryRate };
  return {
    id: config.id,
    kind: "policy",
    config,
    generate(request) {
      const { problem, partialSolution } = readPolicyPrompt(request);
      try {
        return continueSolution(problem, partialSolution, rates, sampleRng(config.id, request));
      } catch (error) {
        if (error instanceof WorldParseError) throw new SimPromptError(`${config.id} cannot continue this partial solution: ${error.message}`);
        throw error;
      }
    },
  };
}
