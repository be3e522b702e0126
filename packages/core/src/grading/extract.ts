/**
 * Finding the final answer in a bare answer, a LaTeX string or a whole model
 * response, by rules tried in a fixed order of trust. The rule that fired is
 * reported with the answer, so a boxed answer can be told from a guess.
 *
 * | order | rule | mode |
 * | --- | --- | --- |
 * | 1 | `boxed` / `fbox`: the last box, with the boxes listed right before it (`\boxed{1}, \boxed{2}`) | both |
 * | 2 | `final-answer-is`, `answer-is`, `answer-label`: the last answer phrase ("final answer is", "the answer is", "Answer:", "**Answer:**") | both |
 * | 3 | `last-math`: the last math environment of the concluding sentence | lenient |
 * | 4 | `whole-text`: a text without math delimiters and with at most three ordinary words is the answer | lenient |
 * | 5 | `concluding-number`: the number the concluding sentence states | lenient |
 * | 6 | `last-number`: the last number anywhere | lenient |
 *
 * `boxed` mode is for output that was asked to box its answer (policy
 * rollouts): an answer it never stated is no answer, so a response cut off in
 * the middle of "… = 20" is not read as answering 20.
 */
import { matchingBrace } from "./latex";
import { NUMBER_WORDS } from "./word-numbers";

export const EXTRACTION_MODES = ["boxed", "lenient"] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

export const EXTRACTION_RULES = [
  "boxed",
  "fbox",
  "final-answer-is",
  "answer-is",
  "answer-label",
  "last-math",
  "whole-text",
  "concluding-number",
  "last-number",
] as const;
export type ExtractionRule = (typeof EXTRACTION_RULES)[number];

/** The rules each mode may use, in the order they are tried. */
export const RULES_OF_MODE: Readonly<Record<ExtractionMode, readonly ExtractionRule[]>> = {
  boxed: ["boxed", "fbox", "final-answer-is", "answer-is", "answer-label"],
  lenient: EXTRACTION_RULES,
};

export interface ExtractedAnswer {
  text: string;
  rule: ExtractionRule;
}

/** More ordinary words than this and the text is prose, not an answer. */
const MAX_WHOLE_TEXT_WORDS = 3;
/** Texts longer than this are searched for phrases and numbers in their tail only (linear-time guard). */
const MAX_TAIL_CHARS = 20_000;

const BOX_RE = /\\(boxed|fbox)(?![a-zA-Z])/g;

interface Box {
  text: string;
  rule: "boxed" | "fbox";
  start: number;
  end: number;
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
      if (content !== "") boxes.push({ text: content, rule, start: m.index, end: close + 1 });
      BOX_RE.lastIndex = close + 1;
      continue;
    }
    // `\boxed 5`: TeX would take one character; models mean the whole token.
    const token = /^[^\s${}]+/.exec(text.slice(i, i + 200));
    let content = token?.[0].replace(/[.,;:]+$/, "") ?? "";
    if (content.startsWith("\\")) content = /^\\[a-zA-Z]+/.exec(content)?.[0] ?? "";
    if (content !== "") boxes.push({ text: content, rule, start: m.index, end: i + content.length });
  }
  return boxes;
}

/** What may stand between boxes that list one answer: commas, "and"/"or", math delimiters. */
const BOX_SEPARATOR = /^(?:\s|\$|\\[()[\]]|,|;|\band\b|\bor\b|\\text\{\s*(?:and|or|,)\s*\}|\\quad|\\,)*$/i;

/** The last box and the boxes listed right before it: `\boxed{1}, \boxed{2} and \boxed{3}` is the list 1, 2, 3. */
function lastBoxGroup(text: string): ExtractedAnswer | null {
  const boxes = findBoxes(text);
  const last = boxes[boxes.length - 1];
  if (!last) return null;
  const group = [last];
  for (let k = boxes.length - 2; k >= 0; k--) {
    const between = text.slice(boxes[k]!.end, group[0]!.start);
    if (between.length > 40 || !BOX_SEPARATOR.test(between)) break;
    group.unshift(boxes[k]!);
  }
  return { text: group.map((b) => b.text).join(", "), rule: last.rule };
}

const PHRASES: ReadonlyArray<{ re: RegExp; rule: PhraseRule }> = [
  // "final answer is", "Final Answer:", "the final answer to the question is"
  { re: /final\s+answer(?:\s+[a-z][a-z ,]{0,60}?)?\s*(?:\bis\b|:)\s*:?/gi, rule: "final-answer-is" },
  { re: /\banswer\s+is\b\s*:?/gi, rule: "answer-is" },
  // "Answer:", "**Answer:**", "**Answer**:", "ANSWER -"
  { re: /(?<![a-z])answer(?:\*\*|__)?\s*[:：](?:\*\*|__)?/gi, rule: "answer-label" },
];

/** Words that start a justification after the answer, outside math mode. */
const TRAILING_CLAUSE =
  /,?\s+(?:because|since|as|which|where|when|if|but|so|given|thus|hence|after|before|while|and\s+(?:we|this|that|so|the|it|thus|hence))\b/i;

/** Ordinary words outside LaTeX commands and text boxes, number words and and/or not counted. */
function proseWordCount(text: string): number {
  const bare = text.replace(/\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{[^{}]*\}/g, " ").replace(/\\[a-zA-Z]+/g, " ");
  const words = bare.match(/[a-zA-Z]{2,}/g) ?? [];
  return words.filter((w) => !NUMBER_WORDS.has(w.toLowerCase()) && !/^(?:and|or)$/i.test(w)).length;
}

// ---------------------------------------------------------------------------
// Math environments

interface MathSpan {
  start: number;
  end: number;
  content: string;
}

const CLOSER: Record<string, string> = { $$: "$$", "\\[": "\\]", "\\(": "\\)", $: "$" };

/**
 * The math environments of `text` in order: `$$…$$` and `\[…\]` (may span
 * lines), `$…$` and `\(…\)` (one line). A `$` before a digit whose "content"
 * reads as prose is a currency sign, not math (`costs $5 and $7`).
 */
function findMath(text: string): MathSpan[] {
  const spans: MathSpan[] = [];
  // A closer missing after some offset is missing after every later one: each is searched for at most once in vain.
  const missing = new Set<string>();
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    let opener: string | null = null;
    if (ch === "\\" && (text[i + 1] === "[" || text[i + 1] === "(")) opener = text.slice(i, i + 2);
    else if (ch === "\\") {
      i += 2; // an escaped character, `\$` among them
      continue;
    } else if (ch === "$") opener = text[i + 1] === "$" ? "$$" : "$";
    if (!opener) {
      i += 1;
      continue;
    }
    const closer = CLOSER[opener]!;
    const from = i + opener.length;
    const inline = opener === "$" || opener === "\\(";
    // Inline math stays on one line.
    const limit = inline ? lineEnd(text, from) : text.length;
    const end = missing.has(closer) && !inline ? -1 : findCloser(text, from, closer, limit);
    if (end === -1) {
      if (!inline) missing.add(closer);
      i = from;
      continue;
    }
    const content = text.slice(from, end);
    if (opener === "$" && (proseWordCount(content) >= 2 || /^\d/.test(text.slice(end + 1, end + 2)) || content.trim() === "")) {
      // Currency: the `$` belongs to an amount, and the next `$` may open real math.
      i = from;
      continue;
    }
    spans.push({ start: i, end: end + closer.length, content: content.trim() });
    i = end + closer.length;
  }
  return spans;
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline;
}

/** The index of `closer` in [from, limit), skipping escaped characters (`\$`), or -1. */
function findCloser(text: string, from: number, closer: string, limit = text.length): number {
  for (let j = from; j < limit; j++) {
    const ch = text[j]!;
    if (ch === "\\" && !(closer.startsWith("\\") && text.startsWith(closer, j))) {
      j += 1;
      continue;
    }
    if (text.startsWith(closer, j)) return j;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Sentences and numbers

/** Sentence ends: `.`, `!`, `?` before white space or the end (not a decimal point), and line breaks. */
function sentencesOf(paragraph: string, math: readonly MathSpan[]): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let start = 0;
  let span = 0;
  for (let k = 0; k < paragraph.length; k++) {
    while (span < math.length && math[span]!.end <= k) span += 1;
    if (span < math.length && math[span]!.start <= k) continue;
    const ch = paragraph[k]!;
    const ends = ch === "\n" || ((ch === "." || ch === "!" || ch === "?") && /^(?:\s|$)/.test(paragraph.slice(k + 1, k + 2)));
    if (ends) {
      if (paragraph.slice(start, k).trim() !== "") out.push({ start, end: k });
      start = k + 1;
    }
  }
  if (paragraph.slice(start).trim() !== "") out.push({ start, end: paragraph.length });
  return out;
}

/**
 * Numbers as written in prose: `-3`, `1,234.5`, `1 000`, `2,74`, `3/4`, `.5`, `12%`. Not the digits of a word
 * or a name (`AZYUK2A`, `x_2`, `x^2`); a unit may follow (`100m`, `1,000.99€`).
 */
const NUMBER_RE =
  /(?<![A-Za-z_\\^\d.,])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d.,])|\d+)(?:[.,]\d+)?(?:\/\d+)?(?:\s?%)?|(?<![A-Za-z_\\^\d.])-?\.\d+(?:\s?%)?/g;

interface NumberToken {
  text: string;
  index: number;
}

function numbersIn(text: string): NumberToken[] {
  const out: NumberToken[] = [];
  NUMBER_RE.lastIndex = 0;
  for (let m = NUMBER_RE.exec(text); m; m = NUMBER_RE.exec(text)) {
    out.push({ text: m[0].replace(/\s+%$/, "%").replace(/ (?=\d{3})/g, ""), index: m.index });
  }
  return out;
}

/** Words after which a sentence states its result: "is 20", "= 20", "equals 20", "total of 20". */
const COPULA = /(?:\b(?:is|are|was|were|be|equals?|gives|get|gets|got|makes|remain|remains|left with|total of|comes to|amounts to)\b|=|:)/gi;

/**
 * The value a sentence states: its last math environment (lone variable names
 * skipped when something else is there), else the number right after its last
 * copula, else its last number. Justifications after the value are cut first.
 */
function valueOfSentence(sentence: string, allowMath: boolean): { text: string; rule: "last-math" | "concluding-number" } | null {
  const math = findMath(sentence);
  if (allowMath && math.length > 0) {
    // "so $x = 5$ is the value of $x$": a lone name is what the sentence talks about, not its value.
    const meaningful = math.filter((s) => !/^(?:[a-zA-Z]|\\[a-zA-Z]+)$/.test(s.content));
    const candidates = meaningful.length > 0 ? meaningful : math;
    const span = candidates[candidates.length - 1]!;
    if (span.content !== "") return { text: span.content, rule: "last-math" };
  }
  let body = sentence;
  const clause = TRAILING_CLAUSE.exec(body);
  if (clause && clause.index > 0 && /\d/.test(body.slice(0, clause.index))) body = body.slice(0, clause.index);
  const numbers = numbersIn(body);
  if (numbers.length === 0) return null;
  let copulaEnd = -1;
  COPULA.lastIndex = 0;
  for (let m = COPULA.exec(body); m; m = COPULA.exec(body)) copulaEnd = m.index + m[0].length;
  const after = numbers.find((n) => n.index >= copulaEnd);
  return { text: (copulaEnd >= 0 && after ? after : numbers[numbers.length - 1]!).text, rule: "concluding-number" };
}

// ---------------------------------------------------------------------------
// Answer phrases

/** The answer after a phrase: inline math if it starts with a delimiter, else up to the end of the sentence. */
function answerAfter(text: string, start: number): string {
  let rest = text.slice(start).replace(/^[\s*_]+/, "");
  const display = /^(\$\$|\\\[|\\\(|\$)/.exec(rest);
  if (display) {
    const opener = display[1]!;
    const end = findCloser(rest, opener.length, CLOSER[opener]!);
    if (end !== -1) {
      const content = rest.slice(opener.length, end).trim();
      if (!(opener === "$" && proseWordCount(content) >= 2)) return content;
    }
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
  const found: Array<{ index: number; end: number; rule: PhraseRule }> = [];
  for (const { re, rule } of PHRASES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) found.push({ index: m.index, end: m.index + m[0].length, rule });
  }
  // The latest phrase wins; "answer is" inside "final answer is" is the same phrase.
  const phrases = found
    .filter((p) => !found.some((q) => PHRASE_RANK[q.rule] < PHRASE_RANK[p.rule] && q.index <= p.index && p.index < q.end))
    .sort((a, b) => b.index - a.index || PHRASE_RANK[a.rule] - PHRASE_RANK[b.rule]);
  for (const phrase of phrases) {
    const answer = answerAfter(text, phrase.end);
    if (answer === "") continue;
    // "**Answer:** Verna received $7.00 in change.": the value is the one the sentence states.
    if (proseWordCount(answer) > MAX_WHOLE_TEXT_WORDS) {
      const value = valueOfSentence(answer, true);
      if (value) return { text: value.text, rule: phrase.rule };
      continue;
    }
    return { text: answer, rule: phrase.rule };
  }
  return null;
}

type PhraseRule = "final-answer-is" | "answer-is" | "answer-label";
const PHRASE_RANK: Record<PhraseRule, number> = { "final-answer-is": 0, "answer-is": 1, "answer-label": 2 };

// ---------------------------------------------------------------------------

/** The concluding sentence: the last sentence of the last paragraph that states a value. */
function concludingValue(text: string): { text: string; rule: "last-math" | "concluding-number" } | null {
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  const last = paragraphs[paragraphs.length - 1];
  if (!last) return null;
  const math = findMath(last);
  const sentences = sentencesOf(last, math);
  for (let k = sentences.length - 1; k >= 0; k--) {
    const s = sentences[k]!;
    const value = valueOfSentence(last.slice(s.start, s.end), true);
    if (value) return value;
  }
  return null;
}

function hasMathDelimiters(text: string): boolean {
  return /(?<!\\)\$|(?<!\\)\\[([]/.test(text);
}

/**
 * The final answer in `response`, or null when there is none. `mode` chooses
 * the rules (see the table above); `lenient` is the default.
 */
export function extractAnswer(response: string, mode: ExtractionMode = "lenient"): ExtractedAnswer | null {
  const full = response.trim();
  if (full === "") return null;
  const box = lastBoxGroup(full);
  if (box) return box;
  // Phrases and numbers are read from the end of very long texts only.
  const text = full.length > MAX_TAIL_CHARS ? full.slice(full.length - MAX_TAIL_CHARS) : full;
  const phrase = lastPhrase(text);
  if (phrase) return phrase;
  if (mode === "boxed") return null;

  if (!hasMathDelimiters(text)) {
    // No marker at all: the text is the answer if it reads as mathematics, however long
    // (gold answers can be long polynomials), and not if it reads as prose.
    if (proseWordCount(text) <= MAX_WHOLE_TEXT_WORDS) {
      // "The answer is" with nothing after it announces an answer that is not there.
      if (PHRASES.some(({ re }) => new RegExp(re.source, "i").test(text))) return null;
      return { text, rule: "whole-text" };
    }
  }
  const concluding = concludingValue(text);
  if (concluding) return concluding;
  if (!hasMathDelimiters(text)) {
    const numbers = numbersIn(text);
    const last = numbers[numbers.length - 1];
    return last ? { text: last.text, rule: "last-number" } : null;
  }
  // Math environments somewhere, none in the last paragraph: the last one, else the last number.
  const math = findMath(text);
  const lastMath = math[math.length - 1];
  if (lastMath && lastMath.content !== "") return { text: lastMath.content, rule: "last-math" };
  const numbers = numbersIn(text);
  const last = numbers[numbers.length - 1];
  return last ? { text: last.text, rule: "last-number" } : null;
}
