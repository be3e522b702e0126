import { z } from "zod";

/** One ProcessBench sample (spec §4). `label`: first erroneous paragraph, -1 if none. */
export const processBenchRecordSchema = z
  .object({
    id: z.string().min(1, "must be a non-empty string"),
    generator: z.string().min(1, "must be a non-empty string"),
    problem: z.string().min(1, "must be a non-empty string"),
    steps: z.array(z.string()).min(1, "must hold at least one paragraph"),
    final_answer_correct: z.boolean(),
    label: z.number().int("must be an integer").min(-1, "must be -1 (no error) or a paragraph index"),
  })
  .superRefine((record, ctx) => {
    if (record.label >= record.steps.length) {
      ctx.addIssue({
        code: "custom",
        path: ["label"],
        message: `${record.label} is out of range: the solution has ${record.steps.length} paragraphs (valid: -1..${record.steps.length - 1})`,
      });
    }
  });

export type ProcessBenchRecord = z.infer<typeof processBenchRecordSchema>;

/** "gsm8k-12" → "gsm8k"; ids without a numeric suffix are their own subset. */
export function subsetFromId(id: string): string {
  const match = /^(.*)-\d+$/.exec(id);
  return match?.[1] ? match[1] : id;
}
