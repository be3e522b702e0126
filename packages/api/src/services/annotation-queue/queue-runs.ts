import { STORED_LABEL_RULE_VALUES, storedLabelRule as storedPair, type LabelRule, type TiePolicy } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
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

/** What a run's config snapshot says about segmentation, label rules and tie policy (read leniently: old snapshots lack fields). */
interface RunConfigFacts {
  segmentationMethod?: string;
  labelRules?: LabelRule[];
  tiePolicy?: TiePolicy;
}

export function runConfigFacts(config: unknown): RunConfigFacts {
  return typeof config === "object" && config !== null ? (config as RunConfigFacts) : {};
}

/**
 * The rule a queue audits when none is chosen: the run's first label rule, the
 * one its per-solution stats (`TrajectoryRunStat.firstNegative`) are read
 * from; for a run whose snapshot names none, the first rule it stored labels for.
 */
export async function defaultLabelRule(db: Db, run: { id: string; config: unknown }): Promise<QueueLabelRule | null> {
  const first = runConfigFacts(run.config).labelRules?.[0];
  if (first) return storedPair(first);
  const stored = await db.chunkLabel.findFirst({ where: { runId: run.id }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }], select: { rule: true, paramsKey: true } });
  return stored ?? null;
}

/** How a judge run broke ties between Positive and Negative samples (its snapshot; Negative by default). */
export function judgeTiePolicy(config: unknown): TiePolicy {
  return runConfigFacts(config).tiePolicy === "Positive" ? "Positive" : "Negative";
}
