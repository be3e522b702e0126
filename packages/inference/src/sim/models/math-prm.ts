import { createRng } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimPoolingInput } from "../model";
import { fnv1a32 } from "../world/text";
import type { ConfiguredSimModel } from "./kinds";
import { believeSteps, protocolModelFields } from "./protocol-beliefs";

const { accuracy, positiveBias } = protocolModelFields;
export const simMathPrmConfigSchema = z.strictObject({ id: z.string().trim().min(1).default("sim-math-prm"), accuracy, positiveBias });
export type SimMathPrmConfig = z.output<typeof simMathPrmConfigSchema>;

/** Qwen2.5-Math-PRM's step separator, in the assistant message. */
export const QWEN_PRM_STEP_TAG = "<extra_0>";
/** Math-Shepherd's step tag, after each step of the text input. */
export const MATH_SHEPHERD_STEP_TAG = "ки";

/** The problem and the steps before each step tag, read from a pooling request of either layout. */
export function readPrmInput(input: SimPoolingInput): { layout: "qwen2.5-math-prm" | "math-shepherd"; problem: string; steps: string[] } {
  if (input.kind === "chat") {
    const assistant = input.messages.findLast((m) => m.role === "assistant");
    const user = input.messages.findLast((m) => m.role === "user");
    if (!assistant || !user) throw new SimPromptError("a process reward model needs a user message (the problem) and an assistant message (the steps, each followed by <extra_0>)");
    const parts = assistant.content.split(QWEN_PRM_STEP_TAG);
    return { layout: "qwen2.5-math-prm", problem: user.content, steps: parts.slice(0, -1) };
  }
  const text = input.input;
  const parts = text.split(MATH_SHEPHERD_STEP_TAG).slice(0, -1);
  const stepOne = text.indexOf(" Step 1: ");
  const problem = stepOne === -1 ? "" : text.slice(0, stepOne);
  const steps = parts.map((part, i) => {
    const body = i === 0 && stepOne !== -1 ? part.slice(stepOne + 1) : part;
    return body.replace(/^\n/, "").replace(/^Step \d+: /, "").replace(/ $/, "");
  });
  return { layout: "math-shepherd", problem, steps };
}

/**
 * A simulated discriminative process reward model served on `POST /pooling`:
 * one probability pair per step tag, Qwen2.5-Math-PRM's [p_negative,
 * p_positive] for a conversation whose assistant message ends each step with
 * "<extra_0>", Math-Shepherd's [p("+"), p("-")] for a text input whose steps
 * end with "ки". Its verdict on each step is the world's truth (the arithmetic
 * check for other text) with the configured accuracy; the positive probability
 * is above 0.6 for a step it believes correct and below 0.4 otherwise.
 * Deterministic in the input, like a real reward model.
 */
export function createSimMathPrm(input: Partial<SimMathPrmConfig> = {}): ConfiguredSimModel<"pooling-prm", SimMathPrmConfig> {
  const config = Object.freeze(simMathPrmConfigSchema.parse(input));
  return {
    id: config.id,
    kind: "pooling-prm",
    api: "pooling",
    config,
    generate() {
      throw new SimPromptError(`${config.id} is a pooling model: it serves POST /pooling`);
    },
    pool(poolingInput) {
      const { layout, problem, steps } = readPrmInput(poolingInput);
      const key = poolingInput.kind === "chat" ? poolingInput.messages.map((m) => `${m.role}\u0001${m.content}`).join("\u0000") : poolingInput.input;
      const rng = createRng(`${config.id}|pool|${fnv1a32(key).toString(16)}`);
      const beliefs = believeSteps(config, problem, steps, rng, false);
      return beliefs.map((belief) => {
        const spread = rng.nextFloat() * 0.38;
        const positive = belief.said === "Positive" ? 0.61 + spread : 0.01 + spread;
        return layout === "qwen2.5-math-prm" ? [1 - positive, positive] : [positive, 1 - positive];
      });
    },
  };
}
