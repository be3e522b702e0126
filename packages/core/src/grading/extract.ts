/**
 * Finding the final answer in a bare answer, a LaTeX string or a whole model
 * response. Rules in order of trust: the last box, then the last "final answer
 * is" / "the answer is" phrase, then the whole text if it is short enough to be
 * an answer rather than prose.
 */
import { matchingBrace } from "./latex";
import { NUMBER_WORDS } from "./word-numbers";

export type ExtractionRule = "boxed" | "fbox" | "answer-is" | "final-answer-is" | "whole-text";

export interface ExtractedAnswer {
  text: string;
  rule: ExtractionRule;
}

/** More ordinary words than this and the text is prose, not an answer. */
const MAX_WHOLE_TEXT_WORDS = 3;

const BOX_RE = /\\(boxed|fbox)(?![a-zA-Z])/g;

interface Box {
  text: string;
  rule: "boxed" | "fbox";
  start: number;
}

/** Every readable box in order; an unclosed `\boxed{` (a truncated response) is skipped. */
function findBoxes(text: string): Box[] {
  const boxes: Box[] = [];
  BOX_RE.lastIndex = 0;
  for (let m = BOX_RE.exec(text); m; m = BOX_RE.exec(text)) {
    const rule = m[1] as "boxed" | "fbox";
    let i = m.index + m[0].length;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i += 1;
    if (text[i] === "{") {
      const close = matchingBrace(text, i);
      if (close === -1) continue;
      const content = text.slice(i + 1, close).trim();
      if (content !== "") boxes.push({ text: content, rule, start: m.index });
      BOX_RE.lastIndex = close + 1;
      continue;
    }
    // `\boxed 5`: TeX would take one character; models mean the whole token.
    const token = /^[^\s${}]+/.exec(text.slice(i, i + 200));
    const content = token?.[0].replace(/[.,;:]+$/, "") ?? "";
    if (content !== "" && !content.startsWith("\\")) boxes.push({ text: content, rule, start: m.index });
    else if (content.startsWith("\\")) {
      const word = /^\\[a-zA-Z]+/.exec(content);
      if (word) boxes.push({ text: word[0], rule, start: m.index });
    }
  }
  return boxes;
}

const PHRASES: ReadonlyArray<{ re: RegExp; rule: "answer-is" | "final-answer-is" }> = [
  { re: /final\s+answer\s*(?:is\b|:)\s*:?/gi, rule: "final-answer-is" },
  { re: /the\s+answer\s+is\b\s*:?/gi, rule: "answer-is" },
];

/** Words that start a justification after the answer, outside math mode. */
const TRAILING_CLAUSE =
  /,?\s+(?:because|since|as|which|where|when|if|but|so|given|thus|hence|and\s+(?:we|this|that|so|the|it|thus|hence))\b/i;

/** The answer text following a phrase: inline math if it starts with `$`, else up to the end of the sentence. */
function answerAfter(text: string, start: number): string {
  let rest = text.slice(start).replace(/^[\s*_]+/, "");
  const display = /^(\$\$|\\\[|\\\(|\$)/.exec(rest);
  if (display) {
    const closer = { $$: "$$", "\\[": "\\]", "\\(": "\\)", $: "$" }[display[1] as "$$" | "\\[" | "\\(" | "$"];
    const end = rest.indexOf(closer, display[1]!.length);
    if (end !== -1) return rest.slice(display[1]!.length, end).trim();
  }
  const line = rest.split("\n", 1)[0] ?? "";
  // A period ends the sentence unless it is a decimal point.
  const sentence = /\.(?!\d)(?=\s|$)/.exec(line);
  rest = sentence ? line.slice(0, sentence.index) : line;
  // "The answer is 3/4 because ...": the justification is not part of the answer.
  const clause = TRAILING_CLAUSE.exec(rest);
  if (clause && clause.index > 0) rest = rest.slice(0, clause.index);
  return rest.replace(/[\s*_]+$/, "").replace(/[.$]+$/, "").replace(/^\$+/, "").trim();
}

function lastPhrase(text: string): ExtractedAnswer | null {
  let best: { index: number; end: number; rule: "answer-is" | "final-answer-is" } | null = null;
  for (const { re, rule } of PHRASES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (!best || m.index > best.index) best = { index: m.index, end: m.index + m[0].length, rule };
    }
  }
  if (!best) return null;
  const answer = answerAfter(text, best.end);
  return answer === "" ? null : { text: answer, rule: best.rule };
}

/** Ordinary words outside LaTeX commands and text boxes, number words not counted. */
function proseWordCount(text: string): number {
  const bare = text
    .replace(/\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{[^{}]*\}/g, " ")
    .replace(/\\[a-zA-Z]+/g, " ");
  const words = bare.match(/[a-zA-Z]{2,}/g) ?? [];
  return words.filter((w) => !NUMBER_WORDS.has(w.toLowerCase()) && !/^(?:and|or)$/i.test(w)).length;
}

/**
 * The final answer in `response`, or null when there is none. The rule that
 * fired is reported so callers can tell a boxed answer from a guess.
 */
export function extractAnswer(response: string): ExtractedAnswer | null {
  const boxes = findBoxes(response);
  const box = boxes[boxes.length - 1];
  if (box) return { text: box.text, rule: box.rule };

  const phrase = lastPhrase(response);
  if (phrase) return phrase;

  // No marker at all: the text is the answer if it reads as mathematics, however long
  // (gold answers can be long polynomials), and not if it reads as prose.
  const whole = response.trim();
  if (whole === "" || proseWordCount(whole) > MAX_WHOLE_TEXT_WORDS) return null;
  // "The answer is" with nothing after it announces an answer that is not there.
  if (PHRASES.some(({ re }) => new RegExp(re.source, "i").test(whole))) return null;
  return { text: whole, rule: "whole-text" };
}
