import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

/**
 * The studio's first wording (a paraphrase of the paper's Table 11, kept for the runs
 * made with it): the policy solves a problem and cuts its own reasoning into chunks;
 * the final answer is asked for inside the last chunk because the chunk-tag parser
 * rejects any text outside the tags.
 */
export const SELF_SEGMENTING_POLICY_PROMPT = definePromptTemplate({
  name: "self-segmenting-policy",
  version: 1,
  purpose: "Policy prompt, the studio's first wording: solve the problem step by step and wrap each step of the reasoning in <chunk> tags.",
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

/**
 * The StepWiser paper's policy prompt, Table 11 of arXiv 2508.19229v2, word for word, with
 * the table's line breaks. The paper prints `\boxed{{}}`, Python's format-string escape of
 * `\boxed{}`, which is what the model reads once the problem is filled in.
 */
export const SELF_SEGMENTING_POLICY_PROMPT_V2 = definePromptTemplate({
  name: "self-segmenting-policy",
  version: 2,
  purpose: "Policy prompt, the paper's (Table 11): solve the problem step by step and wrap each part of the reasoning in <chunk> tags.",
  slots: ["problem"],
  text: [
    "You are a helpful assistant designed to solve mathematical problems step-by-step. Your task is to think step-by-step and provide a detailed solution process following a specific format. You MUST follow the following format:",
    "1. Enclose each part of your step-by-step reasoning within <chunk> and </chunk> tags.",
    "2. After completing the chain-of-thought reasoning, provide the final answer within \\boxed{}. Ensure strict compliance with this format for every response.",
    "",
    "Problem: {problem}",
  ].join("\n"),
});

/** Every version of the policy prompt, by id: what a run's `promptTemplateId` (generate, annotate) or `policyPromptTemplateId` (chunk-reset) names. */
export const SELF_SEGMENTING_POLICY_PROMPTS = Object.freeze({
  [SELF_SEGMENTING_POLICY_PROMPT.id]: SELF_SEGMENTING_POLICY_PROMPT,
  [SELF_SEGMENTING_POLICY_PROMPT_V2.id]: SELF_SEGMENTING_POLICY_PROMPT_V2,
});
export type SelfSegmentingPolicyPromptId = keyof typeof SELF_SEGMENTING_POLICY_PROMPTS;
export const SELF_SEGMENTING_POLICY_PROMPT_IDS = Object.freeze(Object.keys(SELF_SEGMENTING_POLICY_PROMPTS) as SelfSegmentingPolicyPromptId[]);
/** New runs prompt the policy with the paper's own prompt. */
export const DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID: SelfSegmentingPolicyPromptId = SELF_SEGMENTING_POLICY_PROMPT_V2.id;
/** What runs stored before they named the policy prompt used. */
export const LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID: SelfSegmentingPolicyPromptId = SELF_SEGMENTING_POLICY_PROMPT.id;

export function buildSelfSegmentingPolicyPrompt(values: { problem: string }, templateId: SelfSegmentingPolicyPromptId = DEFAULT_SELF_SEGMENTING_POLICY_PROMPT_ID): RenderedPrompt {
  return fillPromptTemplate(SELF_SEGMENTING_POLICY_PROMPTS[templateId], { problem: values.problem });
}
