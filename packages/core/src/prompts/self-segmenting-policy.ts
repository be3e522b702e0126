import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

/**
 * The policy solves a problem and cuts its own reasoning into chunks. The
 * final answer is asked for inside the last chunk because the chunk-tag
 * parser rejects any text outside the tags.
 */
export const SELF_SEGMENTING_POLICY_PROMPT = definePromptTemplate({
  name: "self-segmenting-policy",
  version: 1,
  purpose: "Policy prompt: solve the problem step by step and wrap each step of the reasoning in <chunk> tags.",
  slots: ["problem"],
  text: [
    "You are a careful assistant who solves mathematical problems step by step. Think step by step and write out a detailed solution in the format below.",
    "",
    "Split your reasoning into chunks. A chunk is one logical step with a single purpose:",
    "- Give each chunk one clear objective.",
    "- Start a new chunk as soon as the focus shifts.",
    "- Start a new chunk at each new phase, for example when you move from solving to verifying, or when you make an aside.",
    "",
    "You MUST follow this format:",
    "1. Enclose each part of your step-by-step reasoning within <chunk> and </chunk> tags.",
    "2. After completing the chain-of-thought reasoning, provide the final answer within \\boxed{}.",
    "Put the final answer inside the last chunk. Do not nest chunks, and write nothing outside the chunk tags.",
    "",
    "Problem: {problem}",
  ].join("\n"),
});

export function buildSelfSegmentingPolicyPrompt(values: { problem: string }): RenderedPrompt {
  return fillPromptTemplate(SELF_SEGMENTING_POLICY_PROMPT, { problem: values.problem });
}
