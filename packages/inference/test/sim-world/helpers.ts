import { buildSelfSegmentingPolicyPrompt, buildStepwiserJudgePrompt } from "@stepwiser/core";
import type { SimModel, SimPrompt } from "../../src/sim/model";

/** Mia: 12 → +5 → 17 → −3 → 14 → ×2 → 28. */
export const MIA_TEXT =
  "Mia has 12 marbles. She buys 5 more, then gives away 3, then doubles what she has. How many marbles does she have now?";

export const MIA_RIGHT = [
  "She buys 5 more: 12 + 5 = 17.",
  "She gives away 3: 17 - 3 = 14.",
  "She doubles what she has: 14 × 2 = 28.",
  "So the answer is \\boxed{28}.",
] as const;

export const chat = (content: string): SimPrompt => ({ kind: "chat", messages: [{ role: "user", content }], continueFinalMessage: false });

export const chatContinuing = (content: string, partial: string): SimPrompt => ({
  kind: "chat",
  messages: [
    { role: "user", content },
    { role: "assistant", content: partial },
  ],
  continueFinalMessage: true,
});

export const policyPrompt = (problem: string): string => buildSelfSegmentingPolicyPrompt({ problem }).text;

export const judgePrompt = (problem: string, previousChunks: readonly string[], chunk: string): string =>
  buildStepwiserJudgePrompt({ problem, previousChunks, chunk }).text;

export const tagged = (chunks: readonly string[]): string => chunks.map((chunk) => `<chunk>${chunk}</chunk>`).join("\n");

export function generate(model: SimModel, prompt: SimPrompt, seed = 0, temperature = 1): string {
  return model.generate({ prompt, seed, temperature });
}

/** A share measured on n draws is within this of its probability (four standard errors, plus slack). */
export function tolerance(probability: number, n: number): number {
  return 4 * Math.sqrt((probability * (1 - probability)) / n) + 0.01;
}
