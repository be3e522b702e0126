import { z } from "zod";
import type { ConfiguredSimModel } from "./kinds";
import { checkArithmetic, describeArithmeticCheck } from "./arithmetic";
import { parseCriticPrompt, type CriticPromptSlots } from "./critic-prompt";
import { readJudgePrompt } from "./judge";
import { continueAnswer, promptParts } from "./prompt-text";

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
 * The arith-checker's whole answer to a ProcessBench critic prompt (either version):
 * the paragraphs checked in order, up to the first with a wrong equation, whose
 * index it boxes, or -1 when every equation is right.
 */
export function arithCheckerCriticAnswer(slots: CriticPromptSlots): string {
  const lines: string[] = [];
  let firstError = -1;
  for (let i = 0; i < slots.paragraphs.length && firstError === -1; i++) {
    const check = checkArithmetic(slots.paragraphs[i]!);
    lines.push(`Paragraph ${i}: ${describeArithmeticCheck(check)}${check.correct ? "" : " The paragraph contains a calculation error."}`);
    if (!check.correct) firstError = i;
  }
  const conclusion = firstError === -1 ? "No paragraph contains an error." : `The earliest error is in paragraph ${firstError}.`;
  return [...lines, "", `${conclusion}\n\n\\boxed{${firstError}}`].join("\n");
}

/**
 * A deterministic judge that only checks arithmetic: it reads the new chunk of
 * a StepWiser judge prompt (any problem, any text, e.g. ProcessBench GSM8K
 * paragraphs), and answers Negative iff an equation in it is wrong; given a
 * ProcessBench critic prompt it names the first paragraph with a wrong equation.
 * Seed and temperature do not matter.
 */
export function createArithChecker(input: ArithCheckerConfigInput = {}): ConfiguredSimModel<"arith-checker", ArithCheckerConfig> {
  const config = Object.freeze(arithCheckerConfigSchema.parse(input));
  return {
    id: config.id,
    kind: "arith-checker",
    config,
    generate(request) {
      const parts = promptParts(request.prompt);
      const critic = parseCriticPrompt(parts.instruction);
      if (critic) return continueAnswer(arithCheckerCriticAnswer(critic), parts.partial, config.id);
      const { slots, partial } = readJudgePrompt(request, config.id);
      return continueAnswer(arithCheckerAnswer(slots.chunk), partial, config.id);
    },
  };
}
