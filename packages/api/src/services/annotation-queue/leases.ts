import { Prisma, type Db } from "@stepwiser/db";

type Tx = Prisma.TransactionClient;

/**
 * Options of the transactions that claim or give back slots. They queue on the
 * queue's lock, so a burst of annotators waits its turn instead of failing at
 * Prisma's 2 s / 5 s defaults.
 */
export const SLOT_TRANSACTION = { maxWait: 10_000, timeout: 20_000 } as const;

/**
 * Serializes every change to a queue's slots (claim, late submit, undo) for
 * the rest of the transaction. Without it two `next` calls could both count a
 * free slot and both take it; a row lock cannot help because the slot being
 * counted is the absence of a row.
 */
export async function lockQueueSlots(tx: Tx, queueId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`annotation_queue:${queueId}`}, 0))`;
}

/**
 * A JavaScript time as the database's `timestamp(3)` columns store it (UTC,
 * no zone), for raw comparisons against `expiresAt`. Every lease decision uses
 * the API server's clock, the one that wrote `expiresAt`.
 */
export function utcTimestamp(date: Date): Prisma.Sql {
  return Prisma.sql`(${date.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
}

/** Slots of an item held by others: their submissions and their unexpired leases. */
export function slotsTakenByOthers(tx: Tx | Db, itemId: string, annotatorId: string, now: Date): Promise<number> {
  return tx.annotationAssignment.count({
    where: { itemId, annotatorId: { not: annotatorId }, OR: [{ status: "submitted" }, { status: "leased", expiresAt: { gt: now } }] },
  });
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
 * The item to lease next: open to the annotator, preferring items nobody else
 * holds right now (so parallel annotators spread over the queue instead of
 * stacking on the first item's k slots), then the lowest position.
 *
 * Two queries, each walking the queue in position order (index on queueId,
 * position) and stopping at the first item that qualifies, instead of one
 * ordered by "held by others" first: that ordering has no index, so it
 * checked every item of the queue on every claim, under the queue's lock.
 */
export async function nextClaimableItemId(tx: Tx, queue: { id: string; annotatorsPerItem: number }, annotatorId: string, now: Date): Promise<string | null> {
  const first = async (condition: Prisma.Sql) => {
    const rows = await tx.$queryRaw<{ id: string }[]>(Prisma.sql`
      SELECT i.id FROM "AnnotationItem" i
      WHERE i."queueId" = ${queue.id} AND ${openToAnnotator(annotatorId, queue.annotatorsPerItem, now)} AND ${condition}
      ORDER BY i.position, i.id
      LIMIT 1`);
    return rows[0]?.id ?? null;
  };
  return (await first(Prisma.sql`NOT ${heldByOthers(annotatorId, now)}`)) ?? (await first(Prisma.sql`TRUE`));
}

/**
 * Items the annotator has not finished and could still be given, the one they hold included:
 * `openToAnnotator` counted over the queue, with the queue's assignments aggregated once per
 * item (one pass) rather than looked up item by item.
 */
export async function remainingForAnnotator(db: Db | Tx, queue: { id: string; annotatorsPerItem: number }, annotatorId: string, now: Date): Promise<number> {
  const at = utcTimestamp(now);
  const rows = await db.$queryRaw<{ remaining: number }[]>(Prisma.sql`
    SELECT count(*)::int AS remaining
    FROM "AnnotationItem" i
    LEFT JOIN (
      SELECT a."itemId",
        count(*) FILTER (WHERE a."annotatorId" <> ${annotatorId} AND (a.status = 'submitted' OR (a.status = 'leased' AND a."expiresAt" > ${at}))) AS taken,
        bool_or(a."annotatorId" = ${annotatorId} AND a.status IN ('submitted', 'skipped')) AS finished
      FROM "AnnotationAssignment" a JOIN "AnnotationItem" ai ON ai.id = a."itemId"
      WHERE ai."queueId" = ${queue.id}
      GROUP BY a."itemId"
    ) s ON s."itemId" = i.id
    WHERE i."queueId" = ${queue.id} AND i."adjudicatedAt" IS NULL AND s.finished IS NOT TRUE AND coalesce(s.taken, 0) < ${queue.annotatorsPerItem}::int`);
  return rows[0]?.remaining ?? 0;
}
