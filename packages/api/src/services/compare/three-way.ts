import { judgeMcAgreementOfGroups, threeWayAgreement, type ThreeWayPattern } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { countReadingGroups, loadChunksWithReadings, loadHumanReadings, resolveReadingsScope, type StoredRule } from "./readings";

/**
 * Judge × Monte-Carlo × human on the chunks of one dataset: a confusion
 * matrix and Cohen's κ per pair (on the chunks having both readings, the human
 * rating binarised with neutral = Positive), and the chunks whose three
 * readings are not unanimous, with how they split. A disputed human label
 * (annotators disagree, no adjudication yet) counts as no human reading.
 *
 * Judge × Monte-Carlo covers every chunk of the dataset and is counted in the
 * database (`countReadingGroups`); everything involving the human reading is
 * computed from the human-rated chunks alone, read with their other two readings.
 */
export async function compareThreeWay({ db, input }: ServiceArgs<{ judgeRunId: string; annotateRunId: string; rule?: StoredRule; queueId?: string; pattern?: ThreeWayPattern; cursor: number; limit: number }>) {
  const scope = await resolveReadingsScope(db, input);
  const labels = scope.annotateRun && scope.rule ? { annotateRunId: scope.annotateRun.id, rule: scope.rule } : null;
  const [groups, human] = await Promise.all([countReadingGroups(db, scope.judgeRun, labels), loadHumanReadings(db, scope.judgeRun.datasetId, scope.queue?.id)]);
  const rated = await loadChunksWithReadings(db, [...human.ratings.keys()], scope.judgeRun, labels, human.ratings);
  const agreement = threeWayAgreement(rated);
  const matching = input.pattern ? agreement.disagreements.filter((c) => c.pattern === input.pattern) : agreement.disagreements;
  const page = matching.slice(input.cursor, input.cursor + input.limit);
  const next = input.cursor + page.length;
  // Chunks with any reading: those the judge judged or the rule labelled, and rated chunks with neither.
  const chunks = groups.reduce((sum, g) => sum + g.chunks, 0) + rated.filter((c) => c.judge === null && c.mc === null).length;
  return {
    judgeRun: scope.judgeRun,
    annotateRunId: input.annotateRunId,
    queue: scope.queue,
    rule: scope.rule,
    availableRules: scope.availableRules,
    judgeVsMc: judgeMcAgreementOfGroups(groups.map((g) => ({ judge: g.judge?.verdict ?? null, mc: g.mc, chunks: g.chunks }))),
    judgeVsHuman: agreement.judgeVsHuman,
    mcVsHuman: agreement.mcVsHuman,
    chunks,
    humanRated: rated.length,
    disputed: human.disputed,
    complete: agreement.complete,
    unanimous: agreement.unanimous,
    patterns: agreement.patterns,
    list: { items: page, total: matching.length, nextCursor: next < matching.length ? next : null },
  };
}
