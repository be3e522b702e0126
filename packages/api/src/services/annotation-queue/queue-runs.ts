import { STORED_LABEL_RULE_VALUES, storedLabelRule as storedPair, type TiePolicy } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { readRun, readRunConfig, type StoredRun } from "@stepwiser/jobs";
import { z } from "zod";

/** The Monte-Carlo label rule a queue audits, as `ChunkLabel` rows name it. */
export const queueLabelRuleSchema = z.object({ rule: z.enum(STORED_LABEL_RULE_VALUES), paramsKey: z.string().min(1) });
export type QueueLabelRule = z.infer<typeof queueLabelRuleSchema>;

/** `AnnotationQueue.labelRule` is a string column: the rule is kept as its JSON. */
export function storedLabelRule(rule: QueueLabelRule | null): string | null {
  return rule ? JSON.stringify({ rule: rule.rule, paramsKey: rule.paramsKey }) : null;
}

export function parseStoredLabelRule(stored: string | null): QueueLabelRule | null {
  if (!stored) return null;
  const parsed = queueLabelRuleSchema.safeParse(JSON.parse(stored));
  return parsed.success ? parsed.data : null;
}

/** The segmentation method a run worked on, as its config says (with its kind's default); null for kinds without one. */
export function runSegmentationMethod(run: StoredRun): string | null {
  const read = readRun(run);
  return "segmentationMethod" in read.config ? read.config.segmentationMethod : null;
}

/**
 * The rule a queue audits when none is chosen: the run's first label rule, the
 * one its per-solution stats (`SolutionRunStat.firstNegative`) are read
 * from; for a run whose snapshot names none, the first rule it stored labels for.
 */
export async function defaultLabelRule(db: Db, run: StoredRun<"annotate">): Promise<QueueLabelRule | null> {
  const first = readRunConfig(run).labelRules[0];
  if (first) return storedPair(first);
  const stored = await db.chunkLabel.findFirst({ where: { runId: run.id }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }], select: { rule: true, paramsKey: true } });
  return stored ?? null;
}

/** How a judge or benchmark run broke ties between Positive and Negative samples (its snapshot; Negative by default). */
export function judgeTiePolicy(run: StoredRun<"judge" | "benchmark"> | null): TiePolicy {
  return run ? readRunConfig(run).tiePolicy : "Negative";
}
