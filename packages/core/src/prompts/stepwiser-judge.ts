import { chunkText, type ChunkLike } from "../chunks/chunk-like";
import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

/** The studio's first wording of the judge prompt (a paraphrase of the paper's); kept for the runs made with it. */
export const STEPWISER_JUDGE_PROMPT = definePromptTemplate({
  name: "stepwiser-judge",
  version: 1,
  purpose: "StepWiser judge, the studio's first wording (a paraphrase of the paper's Table 3): analyse one new reasoning chunk in the context of the problem and the chunks before it, then judge it Positive or Negative.",
  slots: ["problem", "history", "chunk"],
  text: [
    'You are a reasoning validator for mathematical problems. Your task is to think step by step and determine if the "New Reasoning Chunk" contains any explicit errors based on the problem description and historical context.',
    "",
    'Always analyse the chunk step by step before you judge it. The "Historical Reasoning Path" is the reasoning that came before the new chunk: use it as context, and judge only the "New Reasoning Chunk". It is OK that the chunk does not contain any numerical calculation.',
    "",
    "Give your final judgment as follows:",
    "- Use Positive if the reasoning chunk is free of mistakes.",
    "- Use Negative if the reasoning chunk contains one or more mistakes.",
    "",
    "Mathematical Problem: {problem}",
    "",
    "Historical Reasoning Path: {history}",
    "",
    "New Reasoning Chunk: {chunk}",
    "",
    "Answer in this format:",
    "1. Analysis: first state the goal of the new reasoning chunk. Then check its logic, its method and every calculation against the problem and the historical reasoning path. If you find a mistake, explain what is wrong and why; if you find none, explain why the chunk is a valid step forward.",
    "2. Final Judgment: end your answer with exactly one of these two lines:",
    "Final Judgment: \\boxed{Positive}",
    "Final Judgment: \\boxed{Negative}",
  ].join("\n"),
});

/**
 * The StepWiser paper's judge prompt, Table 3 of arXiv 2508.19229v2, word for word: its
 * three parts (Instruction, Input, Output format) with the table's line breaks, typeset
 * quotes and apostrophes as ASCII, bullets as "- " (docs/DOMAIN.md, "The paper's prompts").
 */
export const STEPWISER_JUDGE_PROMPT_V2 = definePromptTemplate({
  name: "stepwiser-judge",
  version: 2,
  purpose: "StepWiser judge, the paper's prompt (Table 3): analyse one new reasoning chunk in the context of the problem and the chunks before it, then judge it Positive or Negative.",
  slots: ["problem", "history", "chunk"],
  text: [
    "Instruction:",
    'You are a reasoning validator for mathematical problems. Your task is to think step by step and determine if the "New Reasoning Chunk" contains any explicit errors based on the problem description and historical context. First, you must always perform a step-by-step chain of thought analysis to justify your final judgment. Then, based on your analysis, you will make a definitive judgment. It is OK that the chunk does not contain any numerical calculation. Based on your evaluation, provide your final judgment:',
    "- Use Positive if the reasoning chunk is free of mistakes.",
    "- Use Negative if the reasoning chunk contains one or more mistakes.",
    "",
    "Input:",
    "Mathematical Problem: {problem}",
    "Historical Reasoning Path: {history}",
    "New Reasoning Chunk: {chunk}",
    "",
    "Output format:",
    "1. Analysis: [Always provide a step-by-step analysis here. First, briefly state the goal of the current reasoning chunk. Second, verify the logic, method, and any calculations against the problem's requirements and the historical path. If an error is found, clearly explain the error and why it's wrong. If the reasoning is correct, explain why it is a valid and logical step forward.]",
    "2. Final Judgment: [Provide the final judgment within \\boxed{}. Examples: \\boxed{Positive} or \\boxed{Negative}.]",
  ].join("\n"),
});

/** Every version of the judge prompt, by id: what a run's `judgePromptTemplateId` names. */
export const STEPWISER_JUDGE_PROMPTS = Object.freeze({
  [STEPWISER_JUDGE_PROMPT.id]: STEPWISER_JUDGE_PROMPT,
  [STEPWISER_JUDGE_PROMPT_V2.id]: STEPWISER_JUDGE_PROMPT_V2,
});
export type StepwiserJudgePromptId = keyof typeof STEPWISER_JUDGE_PROMPTS;
export const STEPWISER_JUDGE_PROMPT_IDS = Object.freeze(Object.keys(STEPWISER_JUDGE_PROMPTS) as StepwiserJudgePromptId[]);
/** New runs judge with the paper's own prompt. */
export const DEFAULT_STEPWISER_JUDGE_PROMPT_ID: StepwiserJudgePromptId = STEPWISER_JUDGE_PROMPT_V2.id;
/** What runs stored before runs named their judge prompt were judged with. */
export const LEGACY_STEPWISER_JUDGE_PROMPT_ID: StepwiserJudgePromptId = STEPWISER_JUDGE_PROMPT.id;

/** Previous chunks are separated by a blank line, as ProcessBench paragraphs are. */
export const JUDGE_HISTORY_SEPARATOR = "\n\n";
/** An empty history slot would read as if the history were lost; say that there is none. */
export const EMPTY_JUDGE_HISTORY = "(none: this is the first chunk)";

export function formatJudgeHistory(previousChunks: readonly ChunkLike[]): string {
  return previousChunks.length === 0 ? EMPTY_JUDGE_HISTORY : previousChunks.map(chunkText).join(JUDGE_HISTORY_SEPARATOR);
}

export function buildStepwiserJudgePrompt(
  values: {
    problem: string;
    /** The chunks before the one judged, in order (chunks 0..i-1). */
    previousChunks: readonly ChunkLike[];
    chunk: ChunkLike;
  },
  templateId: StepwiserJudgePromptId = DEFAULT_STEPWISER_JUDGE_PROMPT_ID,
): RenderedPrompt {
  return fillPromptTemplate(STEPWISER_JUDGE_PROMPTS[templateId], {
    problem: values.problem,
    history: formatJudgeHistory(values.previousChunks),
    chunk: chunkText(values.chunk),
  });
}
