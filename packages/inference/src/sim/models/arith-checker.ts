import { z } from "zod";
import type { ConfiguredSimModel } from "./kinds";
import { checkArithmetic, describeArithmeticCheck } from "./arithmetic";
import { readJudgePrompt } from "./judge";
import { continueAnswer } from "./prompt-text";

export const arithCheckerConfigSchema = z.strictObject({
  id: z.string().trim().min(1).default("arith-checker"),
});
export type ArithCheckerConfig = z.output<typeof arithCheckerConfigSchema>;
export type ArithCheckerConfigInput = z.input<typeof arithCheckerConfigSchema>;

/** The arith-checker's whole answer to a judge prompt's new chunk. */
export function arithCheckerAnswer(chunk: string): string {
  const check = checkArithmetic(chunk);
  const goal = check.equations.length > 0 ? "carry out the calculations it states" : "set up the next part of the reasoning";
  const conclusion = check.correct ? (check.equations.length > 0 ? " Every calculation is right." : "") : " The chunk contains a calculation error.";
  return `1. Analysis: The goal of this chunk is to ${goal}. Checking: ${describeArithmeticCheck(check)}${conclusion}\n2. Final Judgment: \\boxed{${check.correct ? "Positive" : "Negative"}}`;
}

/**
 * A deterministic judge that only checks arithmetic: it reads the new chunk of
 * a StepWiser judge prompt (any problem, any text, e.g. ProcessBench GSM8K
 * paragraphs), and answers Negative iff an equation in it is wrong. Seed and
 * temperature do not matter.
 */
export function createArithChecker(input: ArithCheckerConfigInput = {}): ConfiguredSimModel<"arith-checker", ArithCheckerConfig> {
  const config = Object.freeze(arithCheckerConfigSchema.parse(input));
  return {
    id: config.id,
    kind: "arith-checker",
    config,
    generate(request) {
      const { slots, partial } = readJudgePrompt(request, config.id);
      return continueAnswer(arithCheckerAnswer(slots.chunk), partial, config.id);
    },
  };
}
