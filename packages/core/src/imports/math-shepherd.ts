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

export interface MathShepherdSteps {
  problem: string;
  steps: string[];
}

/**
 * The problem is the text before the "Step 1:" that opens the first tagged
 * step (the last "Step 1:" before the first tag, so a problem that itself
 * says "Step 1:" is kept whole). Each step is the text from the previous tag
 * (or that "Step 1:") to its own tag, trimmed; "Step k:" prefixes stay.
 */
export function splitMathShepherdInput(input: string, at: RecordAt): MathShepherdSteps {
  const firstTag = input.indexOf(MATH_SHEPHERD_STEP_TAG);
  if (firstTag === -1) throw recordError(at, `has no step tag "${MATH_SHEPHERD_STEP_TAG}": every step must end with one`, "input");
  const start = input.lastIndexOf(FIRST_STEP_MARKER, firstTag);
  if (start === -1) {
    throw recordError(at, `has no "${FIRST_STEP_MARKER}" before the first step tag, so the problem cannot be told from the steps`, "input");
  }
  const problem = input.slice(0, start).trim();
  if (problem === "") throw recordError(at, `holds no problem text before "${FIRST_STEP_MARKER}"`, "input");
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
  const empty = steps.findIndex((s) => s === "");
  if (empty !== -1) throw recordError(at, `step ${empty + 1} is empty (two tags with nothing between them)`, "input");
  return { problem, steps };
}

/**
 * Reads the hard labels from `label`, which must be `input` with each tag
 * replaced by "+" or "-" and nothing else changed. Steps in messages are
 * numbered from 1, as the "Step k:" markers are.
 */
export function mathShepherdHardLabels(input: string, label: string, at: RecordAt): Label[] {
  const segments = input.split(MATH_SHEPHERD_STEP_TAG);
  const stepCount = segments.length - 1;
  const firstStepStart = input.lastIndexOf(FIRST_STEP_MARKER, segments[0]!.length);
  const labels: Label[] = [];
  let inputAt = 0;
  let labelAt = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (!label.startsWith(segment, labelAt)) {
      let same = 0;
      while (same < segment.length && label.charCodeAt(labelAt + same) === segment.charCodeAt(same)) same++;
      const where =
        i === 0 && same < firstStepStart ? "in the problem" : i === stepCount ? "after the last step" : `in step ${i + 1} of ${stepCount}`;
      throw recordError(
        at,
        `differs from input ${where}: label has ${excerptAt(label, labelAt + same)} where input has ${excerptAt(input, inputAt + same)}`,
        "label",
      );
    }
    inputAt += segment.length;
    labelAt += segment.length;
    if (i === stepCount) break;
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
    throw recordError(at, `step ${i + 1} of ${stepCount} has no "+" or "-" where input has its tag: label ${found} there`, "label");
  }
  if (labelAt !== label.length) {
    throw recordError(at, `goes on after the end of input with ${excerptAt(label, labelAt)}`, "label");
  }
  return labels;
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
      const { problem, steps } = splitMathShepherdInput(record.input, at);
      const hardLabels = mathShepherdHardLabels(record.input, record.label, at);
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
