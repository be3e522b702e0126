import { z } from "zod";
import { parseRecord, type RecordAt } from "../imports/record-context";

/*
 * PRMBench (arXiv 2501.03124; github.com/ssmisya/PRMBench, docs/data_format.md). A record
 * is a solution whose steps were modified to hold errors of one class; the evaluator
 * (`load_data_function` and `evaluate_function` in mr_eval/tasks/prmtest_classified/task.py,
 * commit cc7db59) names each item `<classification>_<idx>` and adds, for every record of
 * the class "redundency", one all-correct item `correct_<idx>` made of the original
 * question and process.
 */

/** The class whose records also give the all-correct item, as the evaluator spells it. */
export const PRMBENCH_CORRECT_SOURCE_CLASS = "redundency";
/** The class of the all-correct items the evaluator adds. */
export const PRMBENCH_CORRECT_CLASS = "correct";

const stepList = z.array(z.string(), { error: (issue) => (issue.input === undefined ? "missing" : "must be an array of step texts") }).min(1);
const stepNumbers = z.array(z.number().int().min(1, { error: "must hold step numbers from 1 (they are 1-based)" }));

export const prmbenchRecordSchema = z.looseObject({
  original_question: z.string(),
  modified_question: z.string(),
  original_process: stepList,
  modified_process: stepList,
  modified_steps: stepNumbers.optional(),
  error_steps: stepNumbers,
  reason: z.string().optional(),
  idx: z.union([z.string().min(1), z.number().int()]).transform(String),
  classification: z.string().min(1),
});
export type PrmbenchRecord = z.output<typeof prmbenchRecordSchema>;

export function parsePrmbenchRecord(value: unknown, at: RecordAt): PrmbenchRecord {
  return parseRecord(prmbenchRecordSchema, value, at);
}

/** One evaluated item: a question, its steps, and the 1-based error steps (empty for the all-correct items). */
export interface PrmbenchItem {
  id: string;
  classification: string;
  question: string;
  steps: string[];
  errorSteps: number[];
}

/** Known departures of the released files from their documented layout, accepted as the evaluator accepts them. */
export const PRMBENCH_QUIRKS = {
  errorStepPastEnd: "PRMBench: error step past the last step of modified_process (it labels no step; the evaluator never counts it)",
  duplicateItem: "PRMBench: the same <classification>_<idx> again (the evaluator keeps the first)",
  noErrorSteps: "PRMBench: no error step (every step of the item is correct)",
} as const;

/** The items of one record, as the evaluator builds them: `correct_<idx>` first (redundency records only), then `<classification>_<idx>`. */
export function itemsOfRecord(record: PrmbenchRecord): PrmbenchItem[] {
  const items: PrmbenchItem[] = [];
  if (record.classification === PRMBENCH_CORRECT_SOURCE_CLASS) {
    items.push({ id: `${PRMBENCH_CORRECT_CLASS}_${record.idx}`, classification: PRMBENCH_CORRECT_CLASS, question: record.original_question, steps: record.original_process, errorSteps: [] });
  }
  items.push({ id: `${record.classification}_${record.idx}`, classification: record.classification, question: record.modified_question, steps: record.modified_process, errorSteps: record.error_steps });
  return items;
}

/** The quirks of one item. */
export function itemQuirks(item: PrmbenchItem): string[] {
  const quirks: string[] = [];
  if (item.errorSteps.some((step) => step > item.steps.length)) quirks.push(PRMBENCH_QUIRKS.errorStepPastEnd);
  if (item.classification !== PRMBENCH_CORRECT_CLASS && item.errorSteps.length === 0) quirks.push(PRMBENCH_QUIRKS.noErrorSteps);
  return quirks;
}

/**
 * Items from records in file order, each id once (the first wins, as `load_data_function`
 * keeps the first of a repeated id), with the ids seen again.
 */
export function prmbenchItems(records: Iterable<PrmbenchRecord>): { items: PrmbenchItem[]; repeated: string[] } {
  const items: PrmbenchItem[] = [];
  const repeated: string[] = [];
  const seen = new Set<string>();
  for (const record of records) {
    for (const item of itemsOfRecord(record)) {
      if (seen.has(item.id)) {
        // The all-correct item is made once per idx; a repeated redundancy record repeats it silently there too.
        if (item.classification !== PRMBENCH_CORRECT_CLASS) repeated.push(item.id);
        continue;
      }
      seen.add(item.id);
      items.push(item);
    }
  }
  return { items, repeated };
}

/** Gold step labels of an item: true (correct) for every step not listed as an error; error steps past the end label nothing. */
export function goldStepLabels(item: Pick<PrmbenchItem, "steps" | "errorSteps">): boolean[] {
  const errors = new Set(item.errorSteps);
  return item.steps.map((_, i) => !errors.has(i + 1));
}
