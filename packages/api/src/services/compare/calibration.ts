import { InputError, judgeCalibration, ratingToLabel } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { loadChunkReadings, type StoredRule } from "./readings";

/**
 * Reliability of a judge's share of Positive votes as the probability that the
 * reference calls the chunk Positive: equal-width bins and the expected
 * calibration error. Chunks without a parsed vote or a reference are skipped.
 * With K = 1 every share is 0 or 1, so only the two end bins fill.
 */
export async function compareCalibration({ db, input }: ServiceArgs<{ judgeRunId: string; reference: "mc" | "human"; annotateRunId?: string; rule?: StoredRule; queueId?: string; bins: number }>) {
  if (input.reference === "mc" && !input.annotateRunId) {
    throw new InputError("calibration against Monte-Carlo labels needs an annotate run");
  }
  const readings = await loadChunkReadings(db, { judgeRunId: input.judgeRunId, annotateRunId: input.reference === "mc" ? input.annotateRunId : undefined, rule: input.rule, queueId: input.queueId });
  const judged = readings.chunks.filter((c) => c.judge !== null);
  const report = judgeCalibration(
    judged.map((c) => ({ judgeShare: c.judgeShare, reference: input.reference === "mc" ? c.mc : c.human === null ? null : ratingToLabel(c.human) })),
    { bins: input.bins },
  );
  return { judgeRun: readings.judgeRun, reference: input.reference, rule: input.reference === "mc" ? readings.rule : null, queue: readings.queue, ...report };
}
