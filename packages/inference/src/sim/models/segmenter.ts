import { CHUNK_SEGMENTER_PROMPT, SegmentationError, segmentByBlankLines, segmentByStepMarkers, serializeChunkTags, type Rng } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError } from "../model";
import type { ConfiguredSimModel } from "./kinds";
import { continueAnswer, promptParts, sampleRng } from "./prompt-text";

export const simSegmenterConfigSchema = z.strictObject({
  id: z.string().trim().min(1).default("sim-segmenter"),
  /** Probability that the answer alters one character inside one chunk (a segmentation that must be rejected). */
  faultRate: z.number().min(0).max(1).default(0),
});
export type SimSegmenterConfig = z.output<typeof simSegmenterConfigSchema>;
export type SimSegmenterConfigInput = z.input<typeof simSegmenterConfigSchema>;

// The template ends with "Solution:\n{solution}"; its first line identifies the prompt.
const [SEGMENTER_HEAD = ""] = CHUNK_SEGMENTER_PROMPT.text.split("{solution}");
/** "\nSolution:\n": the label on a line of its own. */
const SOLUTION_LABEL = SEGMENTER_HEAD.slice(SEGMENTER_HEAD.lastIndexOf("\n", SEGMENTER_HEAD.length - 2));
const PROMPT_OPENING = SEGMENTER_HEAD.slice(0, SEGMENTER_HEAD.indexOf("."));

/** The solution in a chunk-segmenter prompt, or null if the text is not that prompt. */
export function parseSegmenterPrompt(text: string): string | null {
  const opening = text.indexOf(PROMPT_OPENING);
  if (opening === -1) return null;
  const label = text.indexOf(SOLUTION_LABEL, opening);
  return label === -1 ? null : text.slice(label + SOLUTION_LABEL.length);
}

/** A sentence (or line) that computes something: an "=" or an operator between numbers. */
const COMPUTATION = /=|\d\s*(?:[+\-−–*×÷/·]|\\times|\\cdot|\\div)\s*\\?\$?\(?\d/;
/** A sentence that gives the final answer starts a phase of its own. */
const FINAL_ANSWER = /\\boxed|\banswer is\b/i;
/** Sentence ends: whitespace after . ! ? before a capital, digit, $ or backslash; or any line break. */
const SENTENCE_BREAK = /(?<=[.!?])[ \t]+(?=[A-Z\d$\\])|[ \t]*\n\s*/g;

interface Span {
  start: number;
  end: number;
}

function trimmedSpan(text: string, start: number, end: number): Span | null {
  const piece = text.slice(start, end);
  const lead = piece.length - piece.trimStart().length;
  const trail = piece.length - piece.trimEnd().length;
  return lead === piece.length ? null : { start: start + lead, end: end - trail };
}

/**
 * Within a paragraph: explanation sentences are grouped with the computation
 * they lead to, so each chunk ends after a sentence that computes; a final
 * answer sentence is a chunk of its own; trailing remarks join the last chunk.
 */
function splitParagraph(text: string, span: Span): Span[] {
  const paragraph = text.slice(span.start, span.end);
  const sentences: Span[] = [];
  let from = 0;
  for (const match of paragraph.matchAll(SENTENCE_BREAK)) {
    const piece = trimmedSpan(paragraph, from, match.index);
    if (piece) sentences.push(piece);
    from = match.index + match[0].length;
  }
  const last = trimmedSpan(paragraph, from, paragraph.length);
  if (last) sentences.push(last);
  const chunks: Span[] = [];
  let open: Span | null = null;
  for (const sentence of sentences) {
    const words = paragraph.slice(sentence.start, sentence.end);
    if (FINAL_ANSWER.test(words)) {
      if (open) chunks.push(open);
      chunks.push(sentence);
      open = null;
      continue;
    }
    open = open ? { start: open.start, end: sentence.end } : sentence;
    if (COMPUTATION.test(words)) {
      chunks.push(open);
      open = null;
    }
  }
  if (open) {
    const previous = chunks[chunks.length - 1];
    if (previous && !FINAL_ANSWER.test(paragraph.slice(previous.start, previous.end))) previous.end = open.end;
    else chunks.push(open);
  }
  return chunks.map((chunk) => ({ start: span.start + chunk.start, end: span.start + chunk.end }));
}

/**
 * Chunk boundaries a careful segmenter would choose: paragraphs (blank lines),
 * then "Step N:" markers, then sentences that compute. Every chunk is an
 * exact slice of the solution, so the chunks reconstruct it.
 */
export function segmentSolution(solution: string): string[] {
  const chunks: string[] = [];
  for (const paragraph of segmentByBlankLines(solution)) {
    const steps = segmentByStepMarkers(paragraph.text);
    if (steps.length > 1) {
      chunks.push(...steps.map((step) => step.text));
      continue;
    }
    for (const span of splitParagraph(solution, { start: paragraph.startOffset, end: paragraph.endOffset })) chunks.push(solution.slice(span.start, span.end));
  }
  return chunks;
}

/** Alters one non-whitespace character of one chunk; the result no longer reconstructs the solution. */
export function corruptOneCharacter(chunks: readonly string[], rng: Rng | null): string[] {
  const positions: Array<[number, number]> = [];
  chunks.forEach((chunk, c) => {
    for (let i = 0; i < chunk.length; i++) if (!/\s/.test(chunk.charAt(i))) positions.push([c, i]);
  });
  if (positions.length === 0) return [...chunks];
  const [c, i] = positions[rng ? rng.nextInt(positions.length) : 0]!;
  const chunk = chunks[c]!;
  const char = chunk.charAt(i);
  const replacement = /\d/.test(char)
    ? String((Number(char) + 1) % 10)
    : /[a-z]/.test(char)
      ? char.toUpperCase()
      : /[A-Z]/.test(char)
        ? char.toLowerCase()
        : char === "#"
          ? "*"
          : "#";
  const altered = [...chunks];
  altered[c] = chunk.slice(0, i) + replacement + chunk.slice(i + 1);
  return altered;
}

/**
 * The simulated chunk segmenter: wraps the solution of a chunk-segmenter
 * prompt in `<chunk>` tags at sensible boundaries, text unaltered, except
 * that with probability `faultRate` it changes one character (greedy at
 * temperature 0: faulty only if faultRate > 0.5).
 */
export function createSimSegmenter(input: SimSegmenterConfigInput = {}): ConfiguredSimModel<"segmenter", SimSegmenterConfig> {
  const config = Object.freeze(simSegmenterConfigSchema.parse(input));
  return {
    id: config.id,
    kind: "segmenter",
    config,
    generate(request) {
      const parts = promptParts(request.prompt);
      const solution = parseSegmenterPrompt(parts.instruction);
      if (solution === null) throw new SimPromptError(`${config.id} expects the chunk-segmenter prompt ("Solution:" and the solution after it)`);
      const chunks = segmentSolution(solution);
      if (chunks.length === 0) throw new SimPromptError(`${config.id}: the solution to segment is empty`);
      const rng = sampleRng(config.id, request);
      const faulty = rng ? rng.nextFloat() < config.faultRate : config.faultRate > 0.5;
      let answer: string;
      try {
        answer = serializeChunkTags(faulty ? corruptOneCharacter(chunks, rng) : chunks);
      } catch (error) {
        if (error instanceof SegmentationError) throw new SimPromptError(`${config.id} cannot segment this solution: ${error.message}`);
        throw error;
      }
      return continueAnswer(answer, parts.partial, config.id);
    },
  };
}
