import { z } from "zod";
import type { Label } from "../labels/label";
import { excerptAt } from "../chunks/text-position";
import { contentHashOf, shortHash } from "./content-hash";
import type { FormatReader } from "./format-reader";
import { parseRecord, recordError, unlessMissing, type RecordAt } from "./record-context";

/*
 * Math-Shepherd (peiyi9979/Math-Shepherd, JSONL): `input` is the problem
 * followed by the steps, each ending with the tag "ки"; `label` is the same
 * text with every tag replaced by "+" (Positive: some rollout from this step
 * reached the answer) or "-" (Negative).
 */

export const MATH_SHEPHERD_STEP_TAG = "ки";
const FIRST_STEP_MARKER = "Step 1:";
const LOWERCASE_FIRST_STEP_MARKER = "step 1:";

const SOFT_MESSAGE = "must be a number between 0 and 1, or null";
const softLabel = z.number({ error: unlessMissing(SOFT_MESSAGE) }).min(0, { error: SOFT_MESSAGE }).max(1, { error: SOFT_MESSAGE }).nullable();

export const mathShepherdRecordSchema = z.looseObject({
  input: z.string(),
  label: z.string(),
  task: z.string().nullable().optional(),
  // Not in the released file: variants that keep the soft estimate (Q itself) add it per step.
  soft_labels: z.array(softLabel).optional(),
  soft_label: z.array(softLabel).optional(),
});

/** Departures of the released file from "problem, then "Step 1:", then tagged steps", counted in the import report. */
export const MATH_SHEPHERD_QUIRKS = {
  lowercaseMarker: 'Math-Shepherd: first step marked "step 1:" (lowercase)',
  noMarker: 'Math-Shepherd: no step marker, problem ends at its last "?"',
  tagInProblem: "Math-Shepherd: step tag inside the problem text (removed with its label)",
} as const;

export interface MathShepherdSteps {
  problem: string;
  steps: string[];
  /** Tags that sit in the problem text, before the first step: their labels are not steps' labels. */
  tagsInProblem: number;
  /** Offset in `input` where the first step starts. */
  firstStepAt: number;
  quirks: string[];
}

function countTags(text: string): number {
  return text.split(MATH_SHEPHERD_STEP_TAG).length - 1;
}

/**
 * Where the first step starts, by the rules the dataset's converters use (see
 * docs/DOMAIN.md, "Math-Shepherd as released"), in order:
 * 1. the last "Step 1:" before the first tag;
 * 2. else the last "step 1:" before the first tag (lowercase in the release);
 * 3. else the first "Step 1:" or "step 1:" after the first tag: the tags before
 *    it sit inside the problem text (a known annotation error of the release);
 * 4. else just after the last "?" before the first tag (no marker at all).
 */
function firstStepStart(input: string, firstTag: number): { start: number; quirk: string | null } | null {
  const upper = input.lastIndexOf(FIRST_STEP_MARKER, firstTag);
  if (upper !== -1) return { start: upper, quirk: null };
  const lower = input.lastIndexOf(LOWERCASE_FIRST_STEP_MARKER, firstTag);
  if (lower !== -1) return { start: lower, quirk: MATH_SHEPHERD_QUIRKS.lowercaseMarker };
  const later = [input.indexOf(FIRST_STEP_MARKER, firstTag), input.indexOf(LOWERCASE_FIRST_STEP_MARKER, firstTag)].filter((i) => i !== -1);
  if (later.length > 0) return { start: Math.min(...later), quirk: MATH_SHEPHERD_QUIRKS.tagInProblem };
  const question = input.lastIndexOf("?", firstTag);
  if (question !== -1) return { start: question + 1, quirk: MATH_SHEPHERD_QUIRKS.noMarker };
  return null;
}

/**
 * The problem is the text before the first step (found by `firstStepStart`),
 * with any tag inside it removed; each step is the text from the previous tag
 * (or the first step's start) to its own tag, trimmed; "Step k:" prefixes stay.
 */
export function splitMathShepherdInput(input: string, at: RecordAt): MathShepherdSteps {
  const firstTag = input.indexOf(MATH_SHEPHERD_STEP_TAG);
  if (firstTag === -1) throw recordError(at, `has no step tag "${MATH_SHEPHERD_STEP_TAG}": every step must end with one`, "input");
  const found = firstStepStart(input, firstTag);
  if (!found) {
    throw recordError(
      at,
      `has no "${FIRST_STEP_MARKER}" (or "${LOWERCASE_FIRST_STEP_MARKER}") and no "?" before the first step tag, so the problem cannot be told from the steps`,
      "input",
    );
  }
  const { start, quirk } = found;
  const problemText = input.slice(0, start);
  const tagsInProblem = countTags(problemText);
  const problem = problemText.split(MATH_SHEPHERD_STEP_TAG).map((piece) => piece.trim()).filter((piece) => piece !== "").join(" ");
  if (problem === "") throw recordError(at, "holds no problem text before the first step", "input");
  const pieces = input.slice(start).split(MATH_SHEPHERD_STEP_TAG);
  const tail = pieces.pop()!;
  if (tail.trim() !== "") {
    throw recordError(
      at,
      `goes on after the last step tag with ${excerptAt(tail.trim(), 0)}: every step must end with "${MATH_SHEPHERD_STEP_TAG}"`,
      "input",
    );
  }
  const steps = pieces.map((piece) => piece.trim());
  if (steps.length === 0) throw recordError(at, "has no tagged step after the problem text", "input");
  const empty = steps.findIndex((s) => s === "");
  if (empty !== -1) throw recordError(at, `step ${empty + 1} is empty (two tags with nothing between them)`, "input");
  return { problem, steps, tagsInProblem, firstStepAt: start, quirks: quirk ? [quirk] : [] };
}

/**
 * Reads the hard labels from `label`, which must be `input` with each tag
 * replaced by "+" or "-" and nothing else changed. Steps in messages are
 * numbered from 1, as the "Step k:" markers are.
 */
export function mathShepherdHardLabels(
  input: string,
  label: string,
  at: RecordAt,
  { tagsInProblem, firstStepAt }: { tagsInProblem: number; firstStepAt: number } = { tagsInProblem: 0, firstStepAt: 0 },
): Label[] {
  const segments = input.split(MATH_SHEPHERD_STEP_TAG);
  const stepCount = segments.length - 1 - tagsInProblem;
  // Step i (1-based) ends at tag tagsInProblem + i; the tags before belong to the problem text.
  const stepOf = (tagIndex: number) => tagIndex - tagsInProblem + 1;
  const labels: Label[] = [];
  let inputAt = 0;
  let labelAt = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (!label.startsWith(segment, labelAt)) {
      let same = 0;
      while (same < segment.length && label.charCodeAt(labelAt + same) === segment.charCodeAt(same)) same++;
      const where =
        inputAt + same < firstStepAt ? "in the problem" : i === segments.length - 1 ? "after the last step" : `in step ${stepOf(i)} of ${stepCount}`;
      throw recordError(
        at,
        `differs from input ${where}: label has ${excerptAt(label, labelAt + same)} where input has ${excerptAt(input, inputAt + same)}`,
        "label",
      );
    }
    inputAt += segment.length;
    labelAt += segment.length;
    if (i === segments.length - 1) break;
    const mark = label.charAt(labelAt);
    if (mark === "+" || mark === "-") {
      labels.push(mark === "+" ? "Positive" : "Negative");
      labelAt += 1;
      inputAt += MATH_SHEPHERD_STEP_TAG.length;
      continue;
    }
    const found = label.startsWith(MATH_SHEPHERD_STEP_TAG, labelAt)
      ? `still has the tag "${MATH_SHEPHERD_STEP_TAG}"`
      : labelAt >= label.length
        ? "ends"
        : `has ${JSON.stringify(label.charAt(labelAt))}`;
    const whose = i < tagsInProblem ? "the tag inside the problem" : `step ${stepOf(i)} of ${stepCount}`;
    throw recordError(at, `${whose} has no "+" or "-" where input has its tag: label ${found} there`, "label");
  }
  if (labelAt !== label.length) {
    throw recordError(at, `goes on after the end of input with ${excerptAt(label, labelAt)}`, "label");
  }
  // The marks of tags inside the problem text label no step.
  return labels.slice(tagsInProblem);
}

/** Math-Shepherd's answer convention: the last step ends with "The answer is: X". */
function statedAnswer(lastStep: string): string | null {
  const phrase = "The answer is";
  const at = lastStep.lastIndexOf(phrase);
  if (at === -1) return null;
  const answer = lastStep
    .slice(at + phrase.length)
    .replace(/^\s*:/, "")
    .trim();
  return answer === "" ? null : answer;
}

export interface MathShepherdReadOptions {
  subset?: string;
  generator?: string;
}

export function mathShepherdReader(options: MathShepherdReadOptions): FormatReader {
  const generator = options.generator ?? "math-shepherd";
  return {
    layout: "json-lines",
    convert(value, at) {
      const record = parseRecord(mathShepherdRecordSchema, value, at);
      const { problem, steps, tagsInProblem, firstStepAt, quirks } = splitMathShepherdInput(record.input, at);
      const hardLabels = mathShepherdHardLabels(record.input, record.label, at, { tagsInProblem, firstStepAt });
      const softField = record.soft_labels !== undefined ? "soft_labels" : "soft_label";
      const softLabels = record.soft_labels ?? record.soft_label ?? null;
      if (softLabels && softLabels.length !== steps.length) {
        throw recordError(at, `expected ${steps.length} soft labels (one per step), got ${softLabels.length}`, softField);
      }
      const finalAnswer = statedAnswer(steps[steps.length - 1]!);
      // The last step's rollouts all start from the finished solution, so its
      // hard label is the solution's own outcome: "+" iff the stated answer is right.
      const finalAnswerCorrect = finalAnswer === null ? null : hardLabels[hardLabels.length - 1] === "Positive";
      const firstNegative = hardLabels.indexOf("Negative");
      const contentHash = contentHashOf(problem, steps, generator);
      return {
        quirks,
        solution: {
          externalId: `math-shepherd-${shortHash(contentHash)}`,
          subset: options.subset ?? record.task?.toLowerCase() ?? null,
          generator,
          problem,
          referenceAnswer: finalAnswerCorrect ? finalAnswer : null,
          steps,
          separator: "\n",
          finalAnswer,
          finalAnswerCorrect,
          firstErrorIndex: firstNegative,
          ratings: null,
          hardLabels,
          softLabels,
          metadata: record.task ? { task: record.task } : {},
          contentHash,
        },
      };
    },
  };
}
