import type { JudgeProtocolId } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";

/**
 * A run's judge outputs, counted: every sample the judge wrote, those the server cut at the
 * generation limit (truncated), and those that ended but could not be read (unparseable, not
 * counting the truncated ones, whose text was cut rather than badly formatted).
 */
export interface JudgeOutputCounts {
  outputs: number;
  truncated: number;
  unparseable: number;
}

/** Where each protocol keeps a sample, and for solution-level samples the field that is null when the sample could not be read. */
const SOLUTION_SAMPLE_READING: Partial<Record<JudgeProtocolId, string>> = {
  "processbench-critic": "vote",
  thinkprm: "predictedFirstError",
  "outcome-pointwise": "score",
};

/**
 * Counts a run's judge outputs from what it stored: the JudgeSamples of protocols that judge
 * per chunk (StepWiser, GenPRM, a discriminative PRM), the per-sample evidence of a
 * SolutionPrediction for those that answer per solution (the critic, ThinkPRM, the pointwise
 * outcome model). The pairwise outcome model's votes live in its brackets and are not counted.
 */
export async function judgeOutputCounts(db: Db, runId: string, protocol: JudgeProtocolId): Promise<JudgeOutputCounts> {
  const field = SOLUTION_SAMPLE_READING[protocol];
  if (field === undefined) {
    const [row] = await db.$queryRaw<Array<{ outputs: bigint; truncated: bigint; unparseable: bigint }>>`
      SELECT count(*) AS outputs,
             count(*) FILTER (WHERE truncated) AS truncated,
             count(*) FILTER (WHERE verdict = 'unparseable' AND NOT truncated) AS unparseable
        FROM "JudgeSample" WHERE "runId" = ${runId}`;
    return { outputs: Number(row!.outputs), truncated: Number(row!.truncated), unparseable: Number(row!.unparseable) };
  }
  const [row] = await db.$queryRaw<Array<{ outputs: bigint; truncated: bigint; unparseable: bigint }>>`
    SELECT count(*) AS outputs,
           count(*) FILTER (WHERE coalesce(e->>'truncated', 'false') = 'true') AS truncated,
           count(*) FILTER (WHERE coalesce(e->>'truncated', 'false') <> 'true' AND jsonb_typeof(e->${field}) IS DISTINCT FROM 'number') AS unparseable
      FROM "SolutionPrediction" p, jsonb_array_elements(CASE WHEN jsonb_typeof(p.samples) = 'array' THEN p.samples ELSE '[]'::jsonb END) AS e
     WHERE p."runId" = ${runId}`;
  return { outputs: Number(row!.outputs), truncated: Number(row!.truncated), unparseable: Number(row!.unparseable) };
}
