import { buildSelfSegmentingPolicyPrompt, SegmentationError, tagChunksInText, type SelfSegmentingPolicyPromptId } from "@stepwiser/core";

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** A `segmentation-sft` row: the policy prompt, the chunk-tagged response, and the text its chunks reconstruct. */
export interface SegmentationSftRow {
  messages: [ChatMessage, ChatMessage];
  problem_id: string;
  solution_id: string;
  original: string;
  correct: boolean | null;
}

/** A `selection` row: the chosen response of one problem, its score, and every candidate's. */
export interface SelectionRow {
  problem_id: string;
  solution_id: string;
  messages: [ChatMessage, ChatMessage];
  score: number;
  candidates: Array<{ solution_id: string; correct: boolean; score: number | null }>;
}

export type SftRow = SegmentationSftRow | SelectionRow;

/** What a row is built from: the problem, the solution text, and its chunks' places in it. */
export interface TaggableSolution {
  problemText: string;
  text: string;
  chunks: ReadonlyArray<{ text: string; startOffset: number; endOffset: number }>;
}

/**
 * The two messages of an SFT row: the self-segmenting policy prompt with the problem, and
 * the solution with each chunk in chunk tags where it stands (the text between chunks as
 * it is, so removing the tags gives the solution back). null when a chunk holds a chunk
 * tag itself, which no tagged response can carry.
 */
export function sftMessages(solution: TaggableSolution, promptTemplateId: SelfSegmentingPolicyPromptId): [ChatMessage, ChatMessage] | null {
  let tagged: string;
  try {
    tagged = tagChunksInText(solution.text, solution.chunks);
  } catch (error) {
    if (error instanceof SegmentationError) return null;
    throw error;
  }
  return [
    { role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: solution.problemText }, promptTemplateId).text },
    { role: "assistant", content: tagged },
  ];
}
