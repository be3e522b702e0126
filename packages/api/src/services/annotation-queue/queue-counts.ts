import { Prisma, type Db } from "@stepwiser/db";

export interface QueueCounts {
  items: number;
  /** Items with at least `annotatorsPerItem` submissions. */
  completedItems: number;
  adjudicatedItems: number;
  submissions: number;
  /** Submissions of the given user. */
  mySubmitted: number;
}

const EMPTY: QueueCounts = { items: 0, completedItems: 0, adjudicatedItems: 0, submissions: 0, mySubmitted: 0 };

/** Progress counts of several queues in one query, so a list of queues costs one round trip, not one per queue. */
export async function queueCounts(db: Db, queueIds: string[], userId: string): Promise<Map<string, QueueCounts>> {
  if (queueIds.length === 0) return new Map();
  const rows = await db.$queryRaw<Array<QueueCounts & { queueId: string }>>(Prisma.sql`
    WITH per_item AS (
      SELECT i.id, i."queueId", i."adjudicatedAt",
             count(a.id) FILTER (WHERE a.status = 'submitted') AS submitted,
             count(a.id) FILTER (WHERE a.status = 'submitted' AND a."annotatorId" = ${userId}) AS mine
      FROM "AnnotationItem" i
      LEFT JOIN "AnnotationAssignment" a ON a."itemId" = i.id
      WHERE i."queueId" IN (${Prisma.join(queueIds)})
      GROUP BY i.id
    )
    SELECT p."queueId",
           count(*)::int AS items,
           (count(*) FILTER (WHERE p.submitted >= q."annotatorsPerItem"))::int AS "completedItems",
           (count(*) FILTER (WHERE p."adjudicatedAt" IS NOT NULL))::int AS "adjudicatedItems",
           coalesce(sum(p.submitted), 0)::int AS submissions,
           coalesce(sum(p.mine), 0)::int AS "mySubmitted"
    FROM per_item p JOIN "AnnotationQueue" q ON q.id = p."queueId"
    GROUP BY p."queueId"`);
  const byQueue = new Map(rows.map(({ queueId, ...counts }) => [queueId, counts]));
  return new Map(queueIds.map((id) => [id, byQueue.get(id) ?? EMPTY]));
}
