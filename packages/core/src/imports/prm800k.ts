import { z } from "zod";
import { contentHashOf, shortHash } from "./content-hash";
import type { FormatReader } from "./format-reader";
import type { ImportedRating, StepRating } from "./imported-solution";
import { parseRecord, recordError, unlessMissing, type RecordAt } from "./record-context";

/*
 * PRM800K (openai/prm800k, phase 1 and phase 2 JSONL): one line per labelled
 * solution. Each step offers one or more model completions, each rated by the
 * labeller; the solution is the path the labeller took through them.
 */

const RATING_MESSAGE = "must be -1, 0, 1 or null";
const rating = z.union([z.literal(-1), z.literal(0), z.literal(1), z.null()], { error: unlessMissing(RATING_MESSAGE) });

const completion = z.looseObject({
  text: z.string(),
  rating,
  flagged: z.boolean().nullable().optional(),
});

const humanCompletion = z.union(
  [
    z.null(),
    z.string(),
    z.looseObject({ text: z.string(), rating: rating.optional(), flagged: z.boolean().nullable().optional() }),
  ],
  { error: "must be null, a string, or an object with a string \"text\" (and optional rating, flagged)" },
);

const CHOSEN_MESSAGE = "must be the index of a completion (an integer, 0 or more) or null";
const chosenCompletion = z
  .number({ error: unlessMissing(CHOSEN_MESSAGE) })
  .int({ error: CHOSEN_MESSAGE })
  .min(0, { error: CHOSEN_MESSAGE })
  .nullable();

const step = z.looseObject({
  completions: z.array(completion).nullable(),
  human_completion: humanCompletion.optional(),
  chosen_completion: chosenCompletion,
});

export const PRM800K_FINISH_REASONS = ["solution", "found_error", "give_up", "bad_problem"] as const;

export const prm800kRecordSchema = z.looseObject({
  labeler: z.string(),
  timestamp: z.string(),
  generation: z.number().int().nullable(),
  is_quality_control_question: z.boolean(),
  is_initial_screening_question: z.boolean(),
  question: z.looseObject({
    problem: z.string().min(1, "must be a non-empty string"),
    ground_truth_answer: z.string().nullable(),
    ground_truth_solution: z.string().nullable().optional(),
    pre_generated_steps: z.array(z.string()).nullable().optional(),
    pre_generated_answer: z.string().nullable().optional(),
    pre_generated_verifier_score: z.number().nullable().optional(),
  }),
  label: z.looseObject({
    steps: z.array(step),
    total_time: z.number().nullable(),
    finish_reason: z.enum(PRM800K_FINISH_REASONS),
  }),
});

export type Prm800kRecord = z.infer<typeof prm800kRecordSchema>;
type Prm800kStep = Prm800kRecord["label"]["steps"][number];

interface ChosenStep {
  text: string;
  rating: StepRating | null;
  flagged: boolean;
  /** A step chosen for want of a labeller's choice: the labelling stopped here. */
  last: boolean;
}

/**
 * The step on the labeller's path:
 * - `chosen_completion` set: that completion (it must exist);
 * - else a human completion (phase 1: written when every completion was rated -1);
 * - else the labeller stopped on this step (phase 2 "found_error", or a give-up):
 *   the first completion rated -1, which is the error that stopped them, else the
 *   first completion; the path ends with it.
 * A step with none of these ends the path before it.
 */
function chosenStep(entry: Prm800kStep, index: number, at: RecordAt): ChosenStep | null {
  const completions = entry.completions ?? [];
  if (entry.chosen_completion !== null) {
    const picked = completions[entry.chosen_completion];
    if (!picked) {
      const count = completions.length;
      const has = count === 0 ? "no completions" : `${count} completion${count === 1 ? "" : "s"} (valid: 0..${count - 1})`;
      throw recordError(at, `${entry.chosen_completion} is out of range: the step has ${has}`, `label.steps.${index}.chosen_completion`);
    }
    return { text: picked.text, rating: picked.rating, flagged: picked.flagged ?? false, last: false };
  }
  const human = entry.human_completion;
  if (typeof human === "string") return { text: human, rating: null, flagged: false, last: false };
  if (human) return { text: human.text, rating: human.rating ?? null, flagged: human.flagged ?? false, last: false };
  const stoppedOn = completions.find((c) => c.rating === -1) ?? completions[0];
  if (!stoppedOn) return null;
  return { text: stoppedOn.text, rating: stoppedOn.rating, flagged: stoppedOn.flagged ?? false, last: true };
}

/** PRM800K's answer convention: the final step ends with "# Answer" and the answer after it. */
function answerAfterHeading(text: string): string | null {
  const at = text.lastIndexOf("# Answer");
  if (at === -1) return null;
  const answer = text.slice(at + "# Answer".length).trim();
  return answer === "" ? null : answer;
}

export const PRM800K_STEP_SEPARATOR = "\n";

export interface Prm800kReadOptions {
  subset?: string;
  generator?: string;
}

export function prm800kReader(options: Prm800kReadOptions): FormatReader {
  const generator = options.generator ?? "prm800k";
  return {
    layout: "json-lines",
    convert(value, at) {
      const record = parseRecord(prm800kRecordSchema, value, at);
      const chosen: ChosenStep[] = [];
      for (const [index, entry] of record.label.steps.entries()) {
        const pick = chosenStep(entry, index, at);
        if (!pick) break;
        chosen.push(pick);
        if (pick.last) break;
      }
      if (chosen.length === 0) {
        throw recordError(
          at,
          record.label.steps.length === 0
            ? "holds no steps: the solution needs at least one"
            : "no usable step: the first step has no chosen, human or rated completion",
          "label.steps",
        );
      }
      const steps = chosen.map((c) => c.text);
      const ratings: ImportedRating[] = chosen.map((c) => ({ rating: c.rating, flagged: c.flagged, labeler: record.labeler }));
      const firstNegative = chosen.findIndex((c) => c.rating === -1);
      const finishReason = record.label.finish_reason;
      const solved = finishReason === "solution";
      const contentHash = contentHashOf(record.question.problem, steps, generator);
      const metadata: Record<string, unknown> = {
        finish_reason: finishReason,
        labeler: record.labeler,
        generation: record.generation,
        is_quality_control_question: record.is_quality_control_question,
        is_initial_screening_question: record.is_initial_screening_question,
      };
      if (record.question.pre_generated_verifier_score !== undefined) {
        metadata.pre_generated_verifier_score = record.question.pre_generated_verifier_score;
      }
      return {
        solution: {
          externalId: `prm800k-${shortHash(contentHash)}`,
          subset: options.subset ?? null,
          generator,
          problem: record.question.problem,
          referenceAnswer: record.question.ground_truth_answer,
          steps,
          separator: PRM800K_STEP_SEPARATOR,
          finalAnswer: solved ? answerAfterHeading(steps[steps.length - 1]!) : null,
          // The README says "solution" ends on the correct answer, but that is the labeller's
          // reading, not a grade against ground_truth_answer: grading finalAnswer decides.
          finalAnswerCorrect: null,
          firstErrorIndex: firstNegative !== -1 ? firstNegative : solved ? -1 : null,
          ratings,
          hardLabels: null,
          softLabels: null,
          metadata,
          contentHash,
        },
      };
    },
  };
}
