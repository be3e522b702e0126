import { EMPTY_JUDGE_HISTORY, JUDGE_HISTORY_SEPARATOR, STEPWISER_JUDGE_PROMPTS } from "@stepwiser/core";

/** The judge prompt's slots, read back from its text. */
export interface JudgePromptSlots {
  problem: string;
  /** The previous chunks, split on the history separator; [] for the "none" placeholder. */
  history: string[];
  chunk: string;
}

/** The fixed text around one template version's slots, taken from the template itself so that a new wording cannot silently stop being recognised. */
interface SlotLabels {
  /** "Mathematical Problem: ": the head's last line; the rest of the head is instructions a caller may reword. */
  problemLabel: string;
  betweenProblemAndHistory: string;
  betweenHistoryAndChunk: string;
  tail: string;
  /** The start of the tail up to its first colon ("\n\nAnswer in this format:", "\n\nOutput format:"). */
  tailStart: string;
}

function slotLabels(text: string): SlotLabels {
  const [head = "", betweenProblemAndHistory = "", betweenHistoryAndChunk = "", tail = ""] = text.split(/\{problem\}|\{history\}|\{chunk\}/);
  return { problemLabel: head.slice(head.lastIndexOf("\n") + 1), betweenProblemAndHistory, betweenHistoryAndChunk, tail, tailStart: tail.slice(0, tail.indexOf(":") + 1) };
}

// Newest first: a prompt of either version reads.
const VERSIONS: readonly SlotLabels[] = Object.values(STEPWISER_JUDGE_PROMPTS)
  .sort((a, b) => b.version - a.version)
  .map((template) => slotLabels(template.text));

/**
 * Reads a StepWiser judge prompt of any version (core's `buildStepwiserJudgePrompt`),
 * also with a chat template around it; null when no version's slot labels are there.
 */
export function parseJudgePrompt(text: string): JudgePromptSlots | null {
  // The version whose whole tail is there, else one whose tail's first line is, else any whose slot labels are.
  for (const tail of ["whole", "start", "none"] as const) {
    for (const labels of VERSIONS) {
      const slots = parseWith(labels, text, tail);
      if (slots) return slots;
    }
  }
  return null;
}

function parseWith(labels: SlotLabels, text: string, tailNeeded: "whole" | "start" | "none"): JudgePromptSlots | null {
  const problemStart = text.indexOf(labels.problemLabel);
  if (problemStart === -1) return null;
  const historyLabel = text.indexOf(labels.betweenProblemAndHistory, problemStart + labels.problemLabel.length);
  if (historyLabel === -1) return null;
  const chunkLabel = text.indexOf(labels.betweenHistoryAndChunk, historyLabel + labels.betweenProblemAndHistory.length);
  if (chunkLabel === -1) return null;
  const chunkStart = chunkLabel + labels.betweenHistoryAndChunk.length;
  const fullTail = text.lastIndexOf(labels.tail);
  if (tailNeeded === "whole" && fullTail < chunkStart) return null;
  const tailStart = fullTail >= chunkStart ? fullTail : text.lastIndexOf(labels.tailStart);
  if (tailNeeded === "start" && tailStart < chunkStart) return null;
  const chunkEnd = tailStart >= chunkStart ? tailStart : text.length;
  const history = text.slice(historyLabel + labels.betweenProblemAndHistory.length, chunkLabel);
  return {
    problem: text.slice(problemStart + labels.problemLabel.length, historyLabel),
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
