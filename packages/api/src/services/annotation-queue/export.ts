import { InputError, isHumanRating, ratingToLabel, type Label } from "@stepwiser/core";
import { Prisma, type AnnotationScheme, type Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { assertQueueMember, queueNotFound } from "./membership";

/** One HumanLabel row of a queue with its provenance: a line of the JSONL export. */
export interface HumanLabelExportLine {
  queue_id: string;
  queue_name: string;
  scheme: AnnotationScheme;
  dataset_id: string;
  solution_id: string;
  external_id: string;
  item_id: string | null;
  chunk_index: number;
  chunk_id: string;
  /** The HumanLabel row. */
  label_id: string;
  rating: number | null;
  label: Label | null;
  /** First-error scheme: the pick the row's submission (or adjudication) made; null in the rating scheme. */
  first_error_index: number | null;
  flagged: boolean;
  note: string | null;
  source: string;
  author_id: string;
  author_email: string;
  assignment_id: string | null;
  created_at: string;
  /** False when a later row of the same author, chunk and source supersedes this one. */
  current: boolean;
  blind: boolean;
}

interface ExportRow {
  id: string;
  chunkId: string;
  chunkIndex: number;
  itemId: string | null;
  rating: number | null;
  flagged: boolean;
  note: string | null;
  source: string;
  authorId: string;
  authorEmail: string;
  assignmentId: string | null;
  /** ISO text with milliseconds, as stored: also the keyset cursor, so no precision is lost between pages. */
  createdAt: string;
  solutionId: string;
  externalId: string;
  current: boolean;
  firstErrorIndex: number | null;
}

const EXPORT_PAGE = 1_000;

/**
 * Every label row of a queue, oldest first, read a page at a time (keyset on
 * time and id), so a queue of any size streams in bounded memory.
 *
 * `first_error_index` is read from the row's own batch (the rows one submission
 * or adjudication wrote together, which share author and time): for a current
 * row it is the assignment's pick, and a row an undo superseded keeps the pick
 * it was sent with rather than showing the newer one.
 */
export async function* humanLabelExportLines(db: Db, queueId: string): AsyncGenerator<HumanLabelExportLine> {
  const queue = await db.annotationQueue.findUnique({ where: { id: queueId }, select: { id: true, name: true, scheme: true, datasetId: true, blind: true } });
  if (!queue) throw queueNotFound(queueId);
  const firstErrorPicks = queue.scheme === "first_error";
  let cursor: { createdAt: string; id: string } | null = null;
  for (;;) {
    const after: Prisma.Sql = cursor
      ? Prisma.sql`AND (l."createdAt", l.id) > (${cursor.createdAt}::timestamptz AT TIME ZONE 'UTC', ${cursor.id})`
      : Prisma.empty;
    const rows: ExportRow[] = await db.$queryRaw<ExportRow[]>(Prisma.sql`
      SELECT l.id, l."chunkId", c.index AS "chunkIndex", l."itemId", l.rating, l.flagged, l.note, l.source,
             l."authorId", u.email AS "authorEmail", l."assignmentId",
             to_char(l."createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
             t.id AS "solutionId", t."externalId",
             NOT EXISTS (
               SELECT 1 FROM "HumanLabel" later
               WHERE later."chunkId" = l."chunkId" AND later."authorId" = l."authorId" AND later.source = l.source
                 AND later."queueId" = l."queueId" AND (later."createdAt", later.id) > (l."createdAt", l.id)
             ) AS current,
             CASE WHEN ${firstErrorPicks} THEN (
               SELECT coalesce(min(bc.index) FILTER (WHERE b.rating = -1), -1)::int
               FROM "HumanLabel" b JOIN "Chunk" bc ON bc.id = b."chunkId"
               WHERE b."queueId" = l."queueId" AND b."itemId" IS NOT DISTINCT FROM l."itemId" AND b."authorId" = l."authorId"
                 AND b.source = l.source AND b."createdAt" = l."createdAt"
             ) END AS "firstErrorIndex"
      FROM "HumanLabel" l
      JOIN "Chunk" c ON c.id = l."chunkId"
      JOIN "Segmentation" s ON s.id = c."segmentationId"
      JOIN "Solution" t ON t.id = s."solutionId"
      JOIN "user" u ON u.id = l."authorId"
      WHERE l."queueId" = ${queue.id} ${after}
      ORDER BY l."createdAt", l.id
      LIMIT ${EXPORT_PAGE}`);
    for (const row of rows) {
      yield {
        queue_id: queue.id,
        queue_name: queue.name,
        scheme: queue.scheme,
        dataset_id: queue.datasetId,
        solution_id: row.solutionId,
        external_id: row.externalId,
        item_id: row.itemId,
        chunk_index: row.chunkIndex,
        chunk_id: row.chunkId,
        label_id: row.id,
        rating: row.rating,
        label: isHumanRating(row.rating) ? ratingToLabel(row.rating) : null,
        first_error_index: row.firstErrorIndex,
        flagged: row.flagged,
        note: row.note,
        source: row.source,
        author_id: row.authorId,
        author_email: row.authorEmail,
        assignment_id: row.assignmentId,
        created_at: row.createdAt,
        current: row.current,
        blind: queue.blind,
      };
    }
    if (rows.length < EXPORT_PAGE) return;
    const last: ExportRow = rows[rows.length - 1]!;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

/** Past this `exportLabels` refuses: a response body that size belongs in the streamed file download. */
export const EXPORT_LINE_CAP = 50_000;

/** A queue's label rows as JSONL lines, for queues up to `EXPORT_LINE_CAP` rows; larger ones stream through the web app's download route. */
export async function exportLabelLines({ db, input }: ServiceArgs<{ queueId: string }>): Promise<{ lines: string[] }> {
  const rows = await db.humanLabel.count({ where: { queueId: input.queueId } });
  if (rows > EXPORT_LINE_CAP) {
    throw new InputError(
      `this queue has ${rows.toLocaleString("en-US")} label rows; exportLabels returns at most ${EXPORT_LINE_CAP.toLocaleString("en-US")}. Download the streamed JSONL export instead.`,
    );
  }
  const lines: string[] = [];
  for await (const line of humanLabelExportLines(db, input.queueId)) lines.push(JSON.stringify(line));
  return { lines };
}

/**
 * A queue's label rows for a streamed download (`humanLabelExportLines`), once
 * the queue is found and the caller may work it: a queue that does not exist
 * (or that a non-member names) is a NotFoundError before the first line, not a
 * broken stream. The web app's label download and the REST API serve it.
 */
export async function queueLabelLines({ db, user, input }: ServiceArgs<{ queueId: string }>): Promise<AsyncGenerator<HumanLabelExportLine>> {
  await assertQueueMember(db, user, { queueId: input.queueId });
  const queue = await db.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true } });
  if (!queue) throw queueNotFound(input.queueId);
  return humanLabelExportLines(db, queue.id);
}
