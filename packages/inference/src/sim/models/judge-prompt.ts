import { EMPTY_JUDGE_HISTORY, JUDGE_HISTORY_SEPARATOR, STEPWISER_JUDGE_PROMPT } from "@stepwiser/core";

/** The judge prompt's slots, read back from its text. */
export interface JudgePromptSlots {
  problem: string;
  /** The previous chunks, split on the history separator; [] for the "none" placeholder. */
  history: string[];
  chunk: string;
}

// The fixed text around the slots, taken from the template itself so that a new
// wording of the prompt cannot silently stop being recognised.
const [HEAD = "", BETWEEN_PROBLEM_AND_HISTORY = "", BETWEEN_HISTORY_AND_CHUNK = "", TAIL = ""] = STEPWISER_JUDGE_PROMPT.text.split(/\{problem\}|\{history\}|\{chunk\}/);
/** "Mathematical Problem: ": the head's last line; the rest of the head is instructions a caller may reword. */
const PROBLEM_LABEL = HEAD.slice(HEAD.lastIndexOf("\n") + 1);
/** "\n\nAnswer in this format:": the start of the tail. */
const TAIL_START = TAIL.slice(0, TAIL.indexOf(":") + 1);

/**
 * Reads a StepWiser judge prompt (core's `buildStepwiserJudgePrompt`), also
 * with a chat template around it; null when the slots' labels are not there.
 */
export function parseJudgePrompt(text: string): JudgePromptSlots | null {
  const problemStart = text.indexOf(PROBLEM_LABEL);
  if (problemStart === -1) return null;
  const historyLabel = text.indexOf(BETWEEN_PROBLEM_AND_HISTORY, problemStart + PROBLEM_LABEL.length);
  if (historyLabel === -1) return null;
  const chunkLabel = text.indexOf(BETWEEN_HISTORY_AND_CHUNK, historyLabel + BETWEEN_PROBLEM_AND_HISTORY.length);
  if (chunkLabel === -1) return null;
  const chunkStart = chunkLabel + BETWEEN_HISTORY_AND_CHUNK.length;
  const fullTail = text.lastIndexOf(TAIL);
  const tailStart = fullTail >= chunkStart ? fullTail : text.lastIndexOf(TAIL_START);
  const chunkEnd = tailStart >= chunkStart ? tailStart : text.length;
  const history = text.slice(historyLabel + BETWEEN_PROBLEM_AND_HISTORY.length, chunkLabel);
  return {
    problem: text.slice(problemStart + PROBLEM_LABEL.length, historyLabel),
    history:
      history.trim() === EMPTY_JUDGE_HISTORY
        ? []
        : history
            .split(JUDGE_HISTORY_SEPARATOR)
            .map((chunk) => chunk.trim())
            .filter((chunk) => chunk !== ""),
    chunk: text.slice(chunkStart, chunkEnd),
  };
}
