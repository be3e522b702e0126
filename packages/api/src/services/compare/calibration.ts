import { InputError, judgeCalibration, ratingToLabel, type JudgeCalibrationItem } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { countReadingGroups, loadChunksWithReadings, loadHumanReadings, resolveReadingsScope, type StoredRule } from "./readings";

/**
 * Reliability of a judge's share of Positive votes as the probability that the
 * reference calls the chunk Positive: equal-width bins and the expected
 * calibration error. Chunks without a parsed vote or a reference are skipped.
 * With K = 1 every share is 0 or 1, so only the two end bins fill.
 *
 * Against Monte-Carlo labels the judged chunks are counted by (votes, label) in
 * the database; against humans only the rated chunks are read, the other judged
 * chunks counted as skipped.
 */
export async function compareCalibration({ db, input }: ServiceArgs<{ judgeRunId: string; reference: "mc" | "human"; annotateRunId?: string; rule?: StoredRule; queueId?: string; bins: number }>) {
  if (input.reference === "mc" && !input.annotateRunId) {
    throw new InputError("calibration against Monte-Carlo labels needs an annotate run");
  }
  const scope = await resolveReadingsScope(db, { judgeRunId: input.judgeRunId, annotateRunId: input.reference === "mc" ? input.annotateRunId : undefined, rule: input.rule, queueId: input.queueId });
  const labels = input.reference === "mc" && scope.annotateRun && scope.rule ? { annotateRunId: scope.annotateRun.id, rule: scope.rule } : null;
  const groups = (await countReadingGroups(db, scope.judgeRun, labels)).filter((g) => g.judge !== null);
  let items: JudgeCalibrationItem[];
  if (input.reference === "mc") {
    items = groups.map((g) => ({ judgeShare: g.judge!.share, reference: g.mc, count: g.chunks }));
  } else {
    const human = await loadHumanReadings(db, scope.judgeRun.datasetId, scope.queue?.id);
    const rated = (await loadChunksWithReadings(db, [...human.ratings.keys()], scope.judgeRun, null, human.ratings)).filter((c) => c.judge !== null);
    const judged = groups.reduce((sum, g) => sum + g.chunks, 0);
    items = rated.map((c) => ({ judgeShare: c.judgeShare, reference: ratingToLabel(c.human!) }));
    if (judged > rated.length) items.push({ judgeShare: null, reference: null, count: judged - rated.length });
  }
  const report = judgeCalibration(items, { bins: input.bins });
  return { judgeRun: scope.judgeRun, reference: input.reference, rule: input.reference === "mc" ? scope.rule : null, queue: scope.queue, ...report };
}
