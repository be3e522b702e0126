import { chunkText, type ChunkLike } from "../chunks/chunk-like";
import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

export const STEPWISER_JUDGE_PROMPT = definePromptTemplate({
  name: "stepwiser-judge",
  version: 1,
  purpose: "StepWiser judge: analyse one new reasoning chunk in the context of the problem and the chunks before it, then judge it Positive or Negative.",
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

/** Previous chunks are separated by a blank line, as ProcessBench paragraphs are. */
export const JUDGE_HISTORY_SEPARATOR = "\n\n";
/** An empty history slot would read as if the history were lost; say that there is none. */
export const EMPTY_JUDGE_HISTORY = "(none: this is the first chunk)";

export function formatJudgeHistory(previousChunks: readonly ChunkLike[]): string {
  return previousChunks.length === 0 ? EMPTY_JUDGE_HISTORY : previousChunks.map(chunkText).join(JUDGE_HISTORY_SEPARATOR);
}

export function buildStepwiserJudgePrompt(values: {
  problem: string;
  /** The chunks before the one judged, in order (chunks 0..i-1). */
  previousChunks: readonly ChunkLike[];
  chunk: ChunkLike;
}): RenderedPrompt {
  return fillPromptTemplate(STEPWISER_JUDGE_PROMPT, {
    problem: values.problem,
    history: formatJudgeHistory(values.previousChunks),
    chunk: chunkText(values.chunk),
  });
}
