import { Prisma, type Db } from "@stepwiser/db";

type Tx = Prisma.TransactionClient;

/**
 * Options of the transactions that claim or give back slots. They queue on the
 * queue's lock, so a burst of annotators waits its turn instead of failing at
 * Prisma's 2 s / 5 s defaults.
 */
export const SLOT_TRANSACTION = { maxWait: 10_000, timeout: 20_000 } as const;

/** The advisory lock key of a queue's slots, for a queue id given as SQL (a parameter or a column). */
function queueSlotsLockKey(queueId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`hashtextextended('annotation_queue:' || ${queueId}, 0)`;
}

/**
 * Serializes every change to a queue's slots (claim, late submit, undo) for
 * the rest of the transaction. Without it two `next` calls could both count a
 * free slot and both take it; a row lock cannot help because the slot being
 * counted is the absence of a row.
 */
export async function lockQueueSlots(tx: Tx, queueId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${queueSlotsLockKey(Prisma.sql`${queueId}`)})`;
}

export interface ClaimQueue {
  id: string;
  annotatorsPerItem: number;
  leaseSeconds: number;
  archivedAt: Date | null;
}

/**
 * A claim's first statement: the queue's settings, with its slots locked
 * (`lockQueueSlots`) for the rest of the transaction; null when the queue
 * does not exist. One round trip instead of a read and then the lock.
 */
export async function lockQueueForClaim(tx: Tx, queueId: string): Promise<ClaimQueue | null> {
  const [queue] = await tx.$queryRaw<Array<ClaimQueue & { unlocked: boolean }>>(Prisma.sql`
    SELECT q.id, q."annotatorsPerItem", q."leaseSeconds", q."archivedAt",
      pg_advisory_xact_lock(${queueSlotsLockKey(Prisma.sql`q.id`)}) IS NULL AS unlocked
    FROM "AnnotationQueue" q WHERE q.id = ${queueId}`);
  if (!queue) return null;
  const { unlocked: _unlocked, ...settings } = queue;
  return settings;
}

/**
 * A JavaScript time as the database's `timestamp(3)` columns store it (UTC,
 * no zone), for raw comparisons against `expiresAt`. Every lease decision uses
 * the API server's clock, the one that wrote `expiresAt`.
 */
export function utcTimestamp(date: Date): Prisma.Sql {
  return Prisma.sql`(${date.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
}

/** SQL count of an item's slots held by others: their submissions and their unexpired leases. */
export function slotsTakenByOthersSql(itemId: string, annotatorId: string, now: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT count(*) FROM "AnnotationAssignment" o
    WHERE o."itemId" = ${itemId} AND o."annotatorId" <> ${annotatorId}
      AND (o.status = 'submitted' OR (o.status = 'leased' AND o."expiresAt" > ${utcTimestamp(now)}))`;
}

/** SQL condition on item `i`: the annotator may still be given it (never submitted or skipped it, a slot is free or theirs). */
function openToAnnotator(annotatorId: string, annotatorsPerItem: number, now: Date): Prisma.Sql {
  const at = utcTimestamp(now);
  return Prisma.sql`
    i."adjudicatedAt" IS NULL
    AND NOT EXISTS (
      SELECT 1 FROM "AnnotationAssignment" m
      WHERE m."itemId" = i.id AND m."annotatorId" = ${annotatorId} AND m.status IN ('submitted', 'skipped'))
    AND (
      SELECT count(*) FROM "AnnotationAssignment" a
      WHERE a."itemId" = i.id AND a."annotatorId" <> ${annotatorId}
        AND (a.status = 'submitted' OR (a.status = 'leased' AND a."expiresAt" > ${at}))
    ) < ${annotatorsPerItem}::int`;
}

/** SQL condition on item `i`: someone else holds an unexpired lease on it. */
function heldByOthers(annotatorId: string, now: Date): Prisma.Sql {
  return Prisma.sql`EXISTS (
    SELECT 1 FROM "AnnotationAssignment" h
    WHERE h."itemId" = i.id AND h."annotatorId" <> ${annotatorId} AND h.status = 'leased' AND h."expiresAt" > ${utcTimestamp(now)})`;
}

/**
 * What a claim leases, read in one statement under the queue's lock: the
 * annotator's own unexpired lease in the queue (`held`: a reload resumes it),
 * else the item to lease next (`itemId`): open to the annotator, preferring
 * items nobody else holds right now (so parallel annotators spread over the
 * queue instead of stacking on the first item's k slots), then the lowest
 * position; both null when nothing is left for them.
 *
 * Each candidate search walks the queue in position order (index on queueId,
 * position) and stops at the first item that qualifies, instead of one search
 * ordered by "held by others" first: that ordering has no index, so it would
 * check every item of the queue on every claim, under the queue's lock. The
 * searches are uncorrelated subqueries, which PostgreSQL runs only when
 * COALESCE and CASE reach them: the second only when every open item is held.
 */
export async function heldOrNextItem(tx: Tx, queue: { id: string; annotatorsPerItem: number }, annotatorId: string, now: Date): Promise<{ held: string | null; itemId: string | null }> {
  const first = (condition: Prisma.Sql) => Prisma.sql`
    SELECT i.id FROM "AnnotationItem" i
    WHERE i."queueId" = ${queue.id} AND ${openToAnnotator(annotatorId, queue.annotatorsPerItem, now)} AND ${condition}
    ORDER BY i.position, i.id
    LIMIT 1`;
  const [row] = await tx.$queryRaw<Array<{ held: string | null; itemId: string | null }>>(Prisma.sql`
    WITH held AS (
      SELECT a.id FROM "AnnotationAssignment" a JOIN "AnnotationItem" i ON i.id = a."itemId"
      WHERE a."annotatorId" = ${annotatorId} AND a.status = 'leased' AND a."expiresAt" > ${utcTimestamp(now)} AND i."queueId" = ${queue.id}
      ORDER BY a."leasedAt" DESC, a.id
      LIMIT 1)
    SELECT (SELECT id FROM held) AS held,
      CASE WHEN EXISTS (SELECT 1 FROM held) THEN NULL
           ELSE coalesce((${first(Prisma.sql`NOT ${heldByOthers(annotatorId, now)}`)}), (${first(Prisma.sql`TRUE`)}))
      END AS "itemId"`);
  return { held: row?.held ?? null, itemId: row?.itemId ?? null };
}

/**
 * The queue's size, and the items the annotator has not finished and could
 * still be given, the one they hold included: `openToAnnotator` counted over
 * the queue. The queue's items are read once (a materialized scan) for both
 * counts and for finding their assignments, which are aggregated once per
 * item rather than looked up item by item.
 */
export async function queueSizeAndRemaining(
  db: Db | Tx,
  queue: { id: string; annotatorsPerItem: number },
  annotatorId: string,
  now: Date,
): Promise<{ items: number; remaining: number }> {
  const at = utcTimestamp(now);
  const rows = await db.$queryRaw<{ items: number; remaining: number }[]>(Prisma.sql`
    WITH qi AS MATERIALIZED (
      SELECT id, "adjudicatedAt" FROM "AnnotationItem" WHERE "queueId" = ${queue.id}
    ), s AS (
      SELECT a."itemId",
        count(*) FILTER (WHERE a."annotatorId" <> ${annotatorId} AND (a.status = 'submitted' OR (a.status = 'leased' AND a."expiresAt" > ${at}))) AS taken,
        bool_or(a."annotatorId" = ${annotatorId} AND a.status IN ('submitted', 'skipped')) AS finished
      FROM "AnnotationAssignment" a JOIN qi ON qi.id = a."itemId"
      GROUP BY a."itemId"
    )
    SELECT count(*)::int AS items,
      (count(*) FILTER (WHERE qi."adjudicatedAt" IS NULL AND s.finished IS NOT TRUE AND coalesce(s.taken, 0) < ${queue.annotatorsPerItem}::int))::int AS remaining
    FROM qi LEFT JOIN s ON s."itemId" = qi.id`);
  return rows[0] ?? { items: 0, remaining: 0 };
}
