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
  /** Where the step came from: a model completion, or a step the labeller wrote (phase 1). */
  source: "completion" | "human_completion";
  /** A step chosen for want of a labeller's choice: the labelling stopped here. */
  last: boolean;
}

/** A rated model completion that is not on the labeller's path, kept in the solution's metadata. */
export interface Prm800kAlternative {
  /** 0-based index of the step it was offered at. */
  step: number;
  text: string;
  rating: StepRating | null;
  flagged: boolean;
  /** Why it is off the path: a human completion replaced every completion of the step, or another one was chosen. */
  offPath: "replaced-by-human" | "not-chosen";
}

/** The README: "if all completions were rated -1, we allowed labelers to write their own +1 step". */
const HUMAN_COMPLETION_RATING: StepRating = 1;

/**
 * The step on the labeller's path:
 * - `chosen_completion` set: that completion (it must exist);
 * - else a human completion (phase 1: written when every completion was rated
 *   -1), rated +1 as the README defines unless the file rates it itself;
 * - else the labeller stopped on this step without choosing (phase 2
 *   "found_error", or a give-up): the first completion rated -1, which is the
 *   error that stopped them; else, when the solution was pre-generated (phase
 *   2), the completion that is the pre-generated step; the path ends with it.
 * A step with none of these (a phase 1 give-up before choosing) ends the path
 * before it.
 */
function chosenStep(entry: Prm800kStep, index: number, preGenerated: readonly string[] | null, at: RecordAt): ChosenStep | null {
  const completions = entry.completions ?? [];
  if (entry.chosen_completion !== null) {
    const picked = completions[entry.chosen_completion];
    if (!picked) {
      const count = completions.length;
      const has = count === 0 ? "no completions" : `${count} completion${count === 1 ? "" : "s"} (valid: 0..${count - 1})`;
      throw recordError(at, `${entry.chosen_completion} is out of range: the step has ${has}`, `label.steps.${index}.chosen_completion`);
    }
    return { text: picked.text, rating: picked.rating, flagged: picked.flagged ?? false, source: "completion", last: false };
  }
  const human = entry.human_completion;
  if (typeof human === "string") return { text: human, rating: HUMAN_COMPLETION_RATING, flagged: false, source: "human_completion", last: false };
  if (human) {
    return { text: human.text, rating: human.rating ?? HUMAN_COMPLETION_RATING, flagged: human.flagged ?? false, source: "human_completion", last: false };
  }
  const preGeneratedStep = preGenerated?.[index];
  const stoppedOn = completions.find((c) => c.rating === -1) ?? (preGeneratedStep !== undefined ? completions.find((c) => c.text === preGeneratedStep) : undefined);
  if (!stoppedOn) return null;
  return { text: stoppedOn.text, rating: stoppedOn.rating, flagged: stoppedOn.flagged ?? false, source: "completion", last: true };
}

/** The step's rated completions that are not the path's step. */
function alternativesOf(entry: Prm800kStep, index: number, pick: ChosenStep | null): Prm800kAlternative[] {
  const completions = entry.completions ?? [];
  const onPath = pick?.source === "completion" ? pick.text : null;
  let skippedOnPath = false;
  const alternatives: Prm800kAlternative[] = [];
  for (const c of completions) {
    if (!skippedOnPath && c.text === onPath) {
      skippedOnPath = true;
      continue;
    }
    if (c.rating === null && !c.flagged) continue;
    alternatives.push({
      step: index,
      text: c.text,
      rating: c.rating,
      flagged: c.flagged ?? false,
      offPath: pick?.source === "human_completion" ? "replaced-by-human" : "not-chosen",
    });
  }
  return alternatives;
}

/** Quirk names counted in the import report. */
export const PRM800K_QUIRKS = {
  humanCompletion: "PRM800K: human-written step rated +1 (README)",
  alternative: "PRM800K: rated alternative completion kept in the solution's metadata",
  replacedAlternative: "PRM800K: alternative replaced by a human step, kept with its rating in the solution's metadata",
  qualityControl: "PRM800K: quality-control question (copies with the same steps merge into one solution with each labeller's ratings)",
  screening: "PRM800K: initial screening question",
  gaveUp: "PRM800K: give_up (the path ends where the labeller stopped)",
} as const;

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
      const finishReason = record.label.finish_reason;
      if (record.label.steps.length === 0) {
        // Released records with no labelled step (the labeller gave up or reported the problem before the first).
        return { ignored: { reason: `PRM800K: no labelled step (label.steps is empty; finish_reason ${finishReason})`, field: "label.steps" } };
      }
      const preGenerated = record.question.pre_generated_steps ?? null;
      const chosen: ChosenStep[] = [];
      const alternatives: Prm800kAlternative[] = [];
      for (const [index, entry] of record.label.steps.entries()) {
        const pick = chosenStep(entry, index, preGenerated, at);
        alternatives.push(...alternativesOf(entry, index, pick));
        if (!pick) break;
        chosen.push(pick);
        if (pick.last) break;
      }
      if (chosen.length === 0) {
        if (finishReason === "give_up" || finishReason === "bad_problem") {
          return { ignored: { reason: `PRM800K: no step on the labeller's path (finish_reason ${finishReason} before choosing the first step)`, field: "label.steps.0" } };
        }
        throw recordError(at, `no usable step: the first step has no chosen, human or rated completion, yet finish_reason is ${finishReason}`, "label.steps");
      }
      const steps = chosen.map((c) => c.text);
      const ratings: ImportedRating[] = chosen.map((c) => ({
        rating: c.rating,
        flagged: c.flagged,
        labeler: record.labeler,
        ...(c.source === "human_completion" ? { source: "human_completion" as const } : {}),
      }));
      const quirks: string[] = [];
      for (const c of chosen) if (c.source === "human_completion") quirks.push(PRM800K_QUIRKS.humanCompletion);
      for (const a of alternatives) quirks.push(a.offPath === "replaced-by-human" ? PRM800K_QUIRKS.replacedAlternative : PRM800K_QUIRKS.alternative);
      if (record.is_quality_control_question) quirks.push(PRM800K_QUIRKS.qualityControl);
      if (record.is_initial_screening_question) quirks.push(PRM800K_QUIRKS.screening);
      if (finishReason === "give_up") quirks.push(PRM800K_QUIRKS.gaveUp);
      const firstNegative = chosen.findIndex((c) => c.rating === -1);
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
      const humanSteps = chosen.flatMap((c, i) => (c.source === "human_completion" ? [i] : []));
      if (humanSteps.length > 0) metadata.human_completion_steps = humanSteps;
      if (alternatives.length > 0) metadata.alternatives = alternatives;
      return {
        quirks,
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
