import { judgeCostAssumptions, JudgeCostAccumulator, type JudgeCost, type JudgeProtocolId } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { planSegmentationIds, type SegmentationSelection } from "../kit/paging";

/** What a judge or benchmark run's estimate reads of its (parsed) configuration. */
export interface JudgePlanConfig extends SegmentationSelection {
  protocol: JudgeProtocolId;
  samples: number;
  maxTokens: number;
  stopAtFirstNegative: boolean;
}

export interface JudgePlan {
  estimate: JudgeCost;
  assumptions: string[];
}

const PAGE = 500;

/** Chunk lengths per segmentation of one page, in SQL: no text leaves the database. */
function readLengths(db: Db, ids: readonly string[]): Promise<Array<{ problemChars: number; chunkChars: number[] }>> {
  return db.$queryRaw<Array<{ problemChars: number; chunkChars: number[] }>>(Prisma.sql`
    SELECT char_length(p.text)::int AS "problemChars",
      COALESCE(array_agg(char_length(c.text)::int ORDER BY c.index) FILTER (WHERE c.id IS NOT NULL), '{}'::int[]) AS "chunkChars"
    FROM "Segmentation" s
    JOIN "Solution" t ON t.id = s."solutionId"
    JOIN "Problem" p ON p.id = t."problemId"
    LEFT JOIN "Chunk" c ON c."segmentationId" = s.id
    WHERE s.id = ANY(${[...ids]})
    GROUP BY s.id, p.id`);
}

/**
 * The stated, simpler estimate of a judge or benchmark run (core's JudgeCostAccumulator) over
 * the run's own plan: the segmentations it would judge, streamed page by page. Reads only.
 */
export async function planJudgeRun(db: Db, config: JudgePlanConfig): Promise<JudgePlan> {
  const accumulator = new JudgeCostAccumulator(config);
  let page: string[] = [];
  const flush = async () => {
    for (const row of await readLengths(db, page)) accumulator.add(row);
    page = [];
  };
  for await (const id of planSegmentationIds(db, config)) {
    page.push(id);
    if (page.length === PAGE) await flush();
  }
  if (page.length > 0) await flush();
  return { estimate: accumulator.totals(), assumptions: judgeCostAssumptions(config, { stopAtFirstNegative: config.stopAtFirstNegative }) };
}
