import { PROCESSBENCH_CRITIC_PROMPT, PROCESSBENCH_CRITIC_PROMPT_V2, type PromptTemplate } from "@stepwiser/core";

/** A ProcessBench critic prompt's slots, read back from its text. */
export interface CriticPromptSlots {
  /** The template whose wording the prompt has. */
  templateId: string;
  problem: string;
  /** The solution's paragraphs, in order of their tags (0, 1, …), text unaltered. */
  paragraphs: string[];
}

interface CriticLayout {
  templateId: string;
  /** The head's last line and the blank space after it: "Problem:\n" (v1), "[Math Problem]\n\n" (v2). */
  problemLabel: string;
  /** The text between the problem and the tagged paragraphs. */
  solutionLabel: string;
  /** The tail's first line, with the blank line before it: where the instructions after the paragraphs start. */
  tailStart: string;
}

// The fixed text around the slots, taken from the templates themselves so that a
// new critic version is read by adding it here, not by copying its wording.
function layoutOf(template: PromptTemplate): CriticLayout {
  const [head = "", between = "", tail = ""] = template.text.split(/\{problem\}|\{tagged_response\}/);
  const headLines = head.trimEnd();
  const tailFirstLine = tail.search(/\S/);
  const tailLineEnd = tail.indexOf("\n", tailFirstLine);
  return {
    templateId: template.id,
    problemLabel: head.slice(headLines.lastIndexOf("\n") + 1),
    solutionLabel: between,
    tailStart: tailLineEnd === -1 ? tail : tail.slice(0, tailLineEnd),
  };
}

/** Newest first: the more specific labels are tried before v1's plain "Problem:". */
const LAYOUTS: readonly CriticLayout[] = [layoutOf(PROCESSBENCH_CRITIC_PROMPT_V2), layoutOf(PROCESSBENCH_CRITIC_PROMPT)];

/**
 * Reads a ProcessBench critic prompt (core's `buildProcessBenchCriticPrompt`, any
 * version: v1's own wording or v2's official one), also with a chat template
 * around it; null when it is not one.
 */
export function parseCriticPrompt(text: string): CriticPromptSlots | null {
  for (const layout of LAYOUTS) {
    const slots = parseWithLayout(text, layout);
    if (slots) return slots;
  }
  return null;
}

function parseWithLayout(text: string, layout: CriticLayout): CriticPromptSlots | null {
  const labelAt = text.indexOf(layout.problemLabel);
  if (labelAt === -1) return null;
  const problemStart = labelAt + layout.problemLabel.length;
  const tailAt = text.lastIndexOf(layout.tailStart);
  if (tailAt < problemStart) return null;
  // The solution label is the last one before the first tag (or, with no paragraphs, before the tail).
  const firstTag = text.indexOf(`${layout.solutionLabel}<paragraph_0>\n`, problemStart);
  const solutionAt = firstTag !== -1 && firstTag < tailAt ? firstTag : text.lastIndexOf(layout.solutionLabel, tailAt);
  if (solutionAt < problemStart) return null;
  const paragraphs = parseTaggedParagraphs(text.slice(solutionAt + layout.solutionLabel.length, tailAt));
  if (!paragraphs) return null;
  return { templateId: layout.templateId, problem: text.slice(problemStart, solutionAt), paragraphs };
}

/** `<paragraph_0>\n…\n</paragraph_0>\n\n<paragraph_1>\n…`, indexed from 0 in order; null when the tags do not read so. */
function parseTaggedParagraphs(tagged: string): string[] | null {
  const paragraphs: string[] = [];
  let at = 0;
  while (at < tagged.length) {
    const index = paragraphs.length;
    const open = `${index === 0 ? "" : "\n\n"}<paragraph_${index}>\n`;
    if (!tagged.startsWith(open, at)) return null;
    const close = `\n</paragraph_${index}>`;
    const end = tagged.indexOf(close, at + open.length);
    if (end === -1) return null;
    paragraphs.push(tagged.slice(at + open.length, end));
    at = end + close.length;
  }
  return paragraphs;
}
