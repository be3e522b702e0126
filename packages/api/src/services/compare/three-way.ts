import { threeWayAgreement, type ThreeWayPattern } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { loadChunkReadings, type StoredRule } from "./readings";

/**
 * Judge × Monte-Carlo × human on the chunks of one dataset: a confusion
 * matrix and Cohen's κ per pair (on the chunks having both readings, the human
 * rating binarised with neutral = Positive), and the chunks whose three
 * readings are not unanimous, with how they split. A disputed human label
 * (annotators disagree, no adjudication yet) counts as no human reading.
 */
export async function compareThreeWay({ db, input }: ServiceArgs<{ judgeRunId: string; annotateRunId: string; rule?: StoredRule; queueId?: string; pattern?: ThreeWayPattern; cursor: number; limit: number }>) {
  const readings = await loadChunkReadings(db, input);
  const agreement = threeWayAgreement(readings.chunks);
  const matching = input.pattern ? agreement.disagreements.filter((c) => c.pattern === input.pattern) : agreement.disagreements;
  const page = matching.slice(input.cursor, input.cursor + input.limit);
  const next = input.cursor + page.length;
  return {
    judgeRun: readings.judgeRun,
    annotateRunId: input.annotateRunId,
    queue: readings.queue,
    rule: readings.rule,
    availableRules: readings.availableRules,
    judgeVsMc: agreement.judgeVsMc,
    judgeVsHuman: agreement.judgeVsHuman,
    mcVsHuman: agreement.mcVsHuman,
    chunks: readings.chunks.length,
    humanRated: readings.chunks.filter((c) => c.human !== null).length,
    disputed: readings.disputed,
    complete: agreement.complete,
    unanimous: agreement.unanimous,
    patterns: agreement.patterns,
    list: { items: page, total: matching.length, nextCursor: next < matching.length ? next : null },
  };
}
