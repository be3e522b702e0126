/**
 * Finding the final answer in a bare answer, a LaTeX string or a whole model
 * response, by rules tried in a fixed order of trust. The rule that fired is
 * reported with the answer, so a boxed answer can be told from a guess.
 *
 * | order | rule | mode |
 * | --- | --- | --- |
 * | 1 | `boxed` / `fbox`: the last box, with the boxes listed right before it (`\boxed{1}, \boxed{2}`) | both |
 * | 2 | `final-answer-is`, `answer-is`, `answer-label`: the last answer phrase ("final answer is", "the answer is", "Answer:", "**Answer:**") | both |
 * | 2b | `emphasised`: a value in bold or emphasis ending the last paragraph ("… is **8**."), ranked as an answer phrase | lenient |
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
  "emphasised",
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

/**
 * What may stand between boxes that list one answer: commas, "and"/"or", math
 * delimiters, and the names the parts are given (`\(y_1 = \boxed{…}\) and \(y_2 = \boxed{…}\)`).
 */
const BOX_SEPARATOR =
  /^(?:\s|\$|\\[()[\]]|,|;|\band\b|\bor\b|\\text\{\s*(?:and|or|,)\s*\}|\\q?quad|\\,|[a-zA-Z](?:_\{?\w+\}?)?\s*=)*$/i;

/**
 * The last box and the boxes listed with it: `\boxed{1}, \boxed{2} and \boxed{3}`
 * is the list 1, 2, 3, and so are boxes inside one math environment.
 */
function lastBoxGroup(text: string): (ExtractedAnswer & { end: number }) | null {
  const boxes = findBoxes(text);
  const last = boxes[boxes.length - 1];
  if (!last) return null;
  const group = [last];
  const env = boxes.length > 1 ? findMath(text).find((m) => m.start <= last.start && last.end <= m.end) : undefined;
  for (let k = boxes.length - 2; k >= 0; k--) {
    const box = boxes[k]!;
    const between = text.slice(box.end, group[0]!.start);
    const sameEnvironment = env !== undefined && env.start <= box.start;
    if (!sameEnvironment && (between.length > 60 || !BOX_SEPARATOR.test(between))) break;
    group.unshift(box);
  }
  return { text: group.map((b) => b.text).join(", "), rule: last.rule, end: last.end };
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
  /,\s*(?:which|where|when|if|as|but|so|thus|hence|and\s+(?:we|this|that|so|the|it|thus|hence))\b|,?\s+(?:because|since|(?<!\b(?:the|a|an|this|these|those|each|any)\s+)given|after|before|while)\b/i;

/**
 * Where a justification after the stated value starts ("3/4 because …", "is 8, since …"), or -1.
 * A clause inside the sentence's subject ("the value of $x$, given that …, is 8") is not cut:
 * the text before a cut states something (a copula) or is the bare value (under two words).
 */
function trailingClauseAt(text: string): number {
  const clause = TRAILING_CLAUSE.exec(text);
  if (!clause || clause.index === 0) return -1;
  const before = text.slice(0, clause.index);
  const blanked = before.replace(/\\\(.*?\\\)|\$[^$]*\$/g, " ");
  const states = new RegExp(COPULA.source, "i").test(blanked);
  return states || proseWordCount(before) < 2 ? clause.index : -1;
}

/** Ordinary words outside LaTeX commands and text boxes, number words and and/or not counted. */
function proseWordCount(text: string): number {
  const bare = text
    .replace(/\\(?:text|mathrm|textbf|mbox|operatorname|begin|end)\s*\{[^{}]*\}/g, " ")
    .replace(/\\[a-zA-Z]+/g, " ");
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
    const amount = opener === "$" && /^\s?\d/.test(content);
    if (content.trim() === "" || (amount && (proseWordCount(content) >= 2 || /^\d/.test(text.slice(end + 1, end + 2))))) {
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

/** What separates the parts of one answer written as several environments or boxes: commas, "and", "or". */
const LIST_SEPARATOR = /^(?:\s|,|;|\band\b|\bor\b|\\text\{\s*(?:and|or|,)\s*\}|\\q?quad|\\,)*$/i;

interface Candidate {
  start: number;
  end: number;
  text: string;
  math: boolean;
}

/**
 * The value a sentence states. Candidates are its math environments (lone
 * names such as `$x$` skipped when there is more) and the numbers outside
 * them; the one right after the sentence's last copula wins ("the degree of
 * \(p\) is 15"), else the last. Environments listed together ("$1$ and $2$")
 * are one answer. Justifications after the value are cut first.
 */
function valueOfSentence(sentence: string): { text: string; rule: "last-math" | "concluding-number" } | null {
  let body = sentence;
  const math = findMath(body);
  const clause = trailingClauseAt(body);
  if (clause > 0 && !math.some((m) => m.start <= clause && clause < m.end) && /\d|\$|\\[([]/.test(body.slice(0, clause))) {
    body = body.slice(0, clause);
  }
  const spans = math.filter((m) => m.end <= body.length && m.content !== "");
  // A bare variable (`$x$`) is never the answer; a lone name (`$\pi$`) only when nothing else is there.
  const named = spans.filter((m) => !isBareVariable(m.content));
  const meaningful = named.filter((m) => !/^\\[a-zA-Z]+$/.test(m.content.trim()));
  // `$E$` alone (a choice, Euler's number) is the answer it states; in a sentence, a variable is not.
  const alone = spans.length === 1 && body.slice(0, spans[0]!.start).trim() === "" && /^[\s.,;:!?]*$/.test(body.slice(spans[0]!.end));
  const candidates: Candidate[] = (meaningful.length > 0 ? meaningful : named.length > 0 || !alone ? named : spans).map((m) => ({ start: m.start, end: m.end, text: m.content, math: true }));
  // Numbers outside math, read from the text with the environments blanked out.
  let outside = body;
  for (const m of spans) outside = outside.slice(0, m.start) + " ".repeat(m.end - m.start) + outside.slice(m.end);
  for (const n of numbersIn(outside)) candidates.push({ start: n.index, end: n.index + n.text.length, text: n.text, math: false });
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => a.start - b.start);
  let copulaEnd = -1;
  COPULA.lastIndex = 0;
  for (let m = COPULA.exec(outside); m; m = COPULA.exec(outside)) copulaEnd = m.index + m[0].length;
  const afterCopula = candidates.find((c) => c.start >= copulaEnd);
  const chosen = copulaEnd >= 0 && afterCopula ? afterCopula : candidates[candidates.length - 1]!;
  if (!chosen.math) return { text: chosen.text, rule: "concluding-number" };
  // "$1$, $2$ and $3$": the environments listed with the chosen one.
  const group = [chosen];
  const at = candidates.indexOf(chosen);
  for (let k = at - 1; k >= 0 && candidates[k]!.math && LIST_SEPARATOR.test(body.slice(candidates[k]!.end, group[0]!.start)); k--) group.unshift(candidates[k]!);
  for (let k = at + 1; k < candidates.length && candidates[k]!.math && LIST_SEPARATOR.test(body.slice(group[group.length - 1]!.end, candidates[k]!.start)); k++) group.push(candidates[k]!);
  return { text: group.map((c) => c.text).join(", "), rule: "last-math" };
}

// ---------------------------------------------------------------------------
// Answer phrases

/** The answer after a phrase: inline math if it starts with a delimiter, else up to the end of the sentence. */
function answerAfter(text: string, start: number): string {
  let rest = text.slice(start).replace(/^(?:[\s*_"'“”]|\\")+/, "");
  if (/^(?:\$|\\[([])/.test(rest)) {
    // Math right after the phrase is the answer; "$12$ and $13$" is one answer in two environments.
    const math = findMath(rest.slice(0, 4000));
    if (math[0]?.start === 0 && math[0].content !== "") {
      const group = [math[0]];
      for (let k = 1; k < math.length && LIST_SEPARATOR.test(rest.slice(group[group.length - 1]!.end, math[k]!.start)); k++) group.push(math[k]!);
      return group.map((m) => m.content).join(", ");
    }
  }
  const line = rest.split("\n", 1)[0] ?? "";
  // A period ends the sentence unless it is a decimal point.
  const sentence = /\.(?!\d)(?=\s|$)/.exec(line);
  rest = sentence ? line.slice(0, sentence.index) : line;
  // "The answer is 3/4 because ...": the justification is not part of the answer.
  const clause = trailingClauseAt(rest);
  if (clause > 0) rest = rest.slice(0, clause);
  return rest.replace(/(?:[\s*_"'“”]|\\")+$/, "").replace(/[.$]+$/, "").replace(/^\$+/, "").trim();
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
    if (proseWordCount(answer) > MAX_WHOLE_TEXT_WORDS || (proseWordCount(answer) >= 2 && /\b(?:is|are|was|were|equals?)\b/i.test(answer))) {
      const value = valueOfSentence(answer);
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
    const value = valueOfSentence(last.slice(s.start, s.end));
    if (value) return value;
  }
  return null;
}

/** `x`, `n`, `x_1`, `a_{n}`: a variable's name, which states no value. */
function isBareVariable(content: string): boolean {
  return /^[a-zA-Z](?:_(?:\{[a-zA-Z0-9]\}|[a-zA-Z0-9]))?$/.test(content.trim());
}

const EMPHASIS = /\*\*([^*\n]{1,120})\*\*|(?<![\w_])__([^_\n]{1,120})__(?![\w_])/g;

/**
 * A value set in bold or emphasis at the end of the response ("… is **8**."), read as an answer
 * phrase: the last emphasised span of the last paragraph, if it states a value (a number or
 * mathematics, not a heading such as "**Final Answer**" or a variable) and nothing after it does.
 */
function lastEmphasis(text: string): ExtractedAnswer | null {
  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  const last = paragraphs[paragraphs.length - 1];
  if (!last) return null;
  let found: { content: string; end: number } | null = null;
  EMPHASIS.lastIndex = 0;
  for (let m = EMPHASIS.exec(last); m; m = EMPHASIS.exec(last)) found = { content: (m[1] ?? m[2] ?? "").trim(), end: m.index + m[0].length };
  if (!found) return null;
  const content = found.content.replace(/^(?:\$+|\\\()\s*/, "").replace(/\s*(?:\$+|\\\))$/, "").replace(/[.,;]$/, "").trim();
  if (content === "" || isBareVariable(content) || /:$/.test(content)) return null;
  if (!/\d|\\[a-zA-Z]/.test(content) || proseWordCount(content) > 1) return null;
  const after = last.slice(found.end);
  if (/\d|(?<!\\)\$|\\[([]/.test(after)) return null;
  return { text: content, rule: "emphasised" };
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
  // Phrases and numbers are read from the end of very long texts only.
  const text = full.length > MAX_TAIL_CHARS ? full.slice(full.length - MAX_TAIL_CHARS) : full;
  const box = lastBoxGroup(full);
  if (box) {
    // "…= \boxed{255}. … Final Answer: The final answer is $10,455$.": an answer stated after the last box,
    // with a value in it, is the response's final word.
    const after = full.slice(box.end);
    const later = after.length <= MAX_TAIL_CHARS ? lastPhrase(after) : null;
    if (later && /\d|\\[a-zA-Z]/.test(later.text)) return later;
    return { text: box.text, rule: box.rule };
  }
  const phrase = lastPhrase(text);
  if (phrase) return phrase;
  if (mode === "boxed") return null;
  // Bold is weaker than a phrase: output asked to box its answer bolds intermediate results too.
  const emphasised = lastEmphasis(text);
  if (emphasised) return emphasised;

  if (!hasMathDelimiters(text)) {
    // No marker at all: the text is the answer if it reads as mathematics, however long
    // (gold answers can be long polynomials), and not if it reads as prose.
    if (proseWordCount(text) <= MAX_WHOLE_TEXT_WORDS) {
      // "The answer is" with nothing after it announces an answer that is not there.
      if (PHRASES.some(({ re }) => (re.lastIndex = 0, re.test(text)))) return null;
      return { text, rule: "whole-text" };
    }
  }
  const concluding = concludingValue(text);
  if (concluding) return concluding;
  // The last paragraph states no value: the last math environment anywhere, else the last number.
  const math = findMath(text);
  const lastMath = math.filter((m) => !isBareVariable(m.content)).at(-1);
  if (lastMath && lastMath.content !== "") return { text: lastMath.content, rule: "last-math" };
  const numbers = numbersIn(text);
  const last = numbers[numbers.length - 1];
  return last ? { text: last.text, rule: "last-number" } : null;
}
