import { hasHumanWork, type HumanWorkCounts, type HumanWorkPlace } from "@stepwiser/core";
import type { Prisma } from "./generated/prisma/client";

/**
 * Finding and deleting human work (see core's HumanWorkCounts). Foreign keys RESTRICT the delete of anything that holds it, so
 * a delete path first finds it here, then either refuses or deletes exactly
 * these rows (`deleteHumanWork`) and audits their ids.
 */

type Tx = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

/** The rows themselves; adjudications are HumanLabel rows too, listed apart from the other labels. */
export interface HumanWorkIds {
  labelIds: string[];
  adjudicationIds: string[];
  itemIds: string[];
  assignmentIds: string[];
}

export interface HumanWork extends HumanWorkCounts {
  ids: HumanWorkIds;
  /** The solutions holding the work. */
  solutionIds: string[];
}

interface HumanWorkRow {
  kind: "label" | "item" | "assignment";
  id: string;
  source: string | null;
  solutionId: string;
  queueId: string | null;
  queueName: string | null;
  datasetId: string;
  datasetName: string;
}

export const NO_HUMAN_WORK: HumanWork = Object.freeze({
  solutions: 0,
  humanLabels: 0,
  adjudications: 0,
  annotationItems: 0,
  assignments: 0,
  places: [],
  ids: { labelIds: [], adjudicationIds: [], itemIds: [], assignmentIds: [] },
  solutionIds: [],
}) as HumanWork;

/**
 * The human work that deleting these solutions would remove:
 * the human labels on their chunks, the annotation items of them (through the
 * solution or one of its segmentations), those items' assignments, and the
 * labels written against those items or assignments.
 */
export async function humanWorkOfSolutions(tx: Tx, solutionIds: readonly string[]): Promise<HumanWork> {
  if (solutionIds.length === 0) return NO_HUMAN_WORK;
  const ids = [...new Set(solutionIds)];
  const rows = await tx.$queryRaw<HumanWorkRow[]>`
    WITH items AS (
      SELECT i.id, i."queueId", i."solutionId" FROM "AnnotationItem" i
       WHERE i."solutionId" = ANY(${ids}::text[])
          OR i."segmentationId" IN (SELECT s.id FROM "Segmentation" s WHERE s."solutionId" = ANY(${ids}::text[]))
    ), assignments AS (
      SELECT a.id, i."queueId", i."solutionId" FROM "AnnotationAssignment" a JOIN items i ON i.id = a."itemId"
    ), labels AS (
      SELECT h.id, h.source, h."queueId", s."solutionId"
        FROM "HumanLabel" h JOIN "Chunk" c ON c.id = h."chunkId" JOIN "Segmentation" s ON s.id = c."segmentationId"
       WHERE s."solutionId" = ANY(${ids}::text[])
      UNION
      SELECT h.id, h.source, h."queueId", i."solutionId" FROM "HumanLabel" h JOIN items i ON i.id = h."itemId"
      UNION
      SELECT h.id, h.source, h."queueId", a."solutionId" FROM "HumanLabel" h JOIN assignments a ON a.id = h."assignmentId"
    ), work AS (
      SELECT 'label' AS kind, id, source, "queueId", "solutionId" FROM labels
      UNION ALL SELECT 'item', id, NULL, "queueId", "solutionId" FROM items
      UNION ALL SELECT 'assignment', id, NULL, "queueId", "solutionId" FROM assignments
    )
    SELECT w.kind, w.id, w.source, w."solutionId", q.id AS "queueId", q.name AS "queueName", d.id AS "datasetId", d.name AS "datasetName"
      FROM work w
      JOIN "Solution" t ON t.id = w."solutionId"
      JOIN "Dataset" d ON d.id = t."datasetId"
      LEFT JOIN "AnnotationQueue" q ON q.id = w."queueId"
     ORDER BY w.kind, w.id`;
  return tallyHumanWork(rows);
}

function tallyHumanWork(rows: readonly HumanWorkRow[]): HumanWork {
  const work: HumanWork = { ...NO_HUMAN_WORK, places: [], ids: { labelIds: [], adjudicationIds: [], itemIds: [], assignmentIds: [] }, solutionIds: [] };
  const places = new Map<string, HumanWorkPlace>();
  const seen = new Set<string>();
  const solutions = new Set<string>();
  for (const row of rows) {
    const key = `${row.kind} ${row.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    solutions.add(row.solutionId);
    const inQueue = row.queueId !== null;
    const placeKey = inQueue ? `queue ${row.queueId}` : `dataset ${row.datasetId}`;
    let place = places.get(placeKey);
    if (!place) {
      place = inQueue
        ? { kind: "queue", id: row.queueId!, name: row.queueName!, humanLabels: 0, adjudications: 0, annotationItems: 0, assignments: 0 }
        : { kind: "dataset", id: row.datasetId, name: row.datasetName, humanLabels: 0, adjudications: 0, annotationItems: 0, assignments: 0 };
      places.set(placeKey, place);
    }
    if (row.kind === "item") {
      place.annotationItems += 1;
      work.ids.itemIds.push(row.id);
    } else if (row.kind === "assignment") {
      place.assignments += 1;
      work.ids.assignmentIds.push(row.id);
    } else if (row.source === "adjudication") {
      place.adjudications += 1;
      work.ids.adjudicationIds.push(row.id);
    } else {
      place.humanLabels += 1;
      work.ids.labelIds.push(row.id);
    }
  }
  work.places = sortPlaces([...places.values()]);
  work.solutionIds = [...solutions].sort();
  work.solutions = solutions.size;
  work.humanLabels = work.ids.labelIds.length;
  work.adjudications = work.ids.adjudicationIds.length;
  work.annotationItems = work.ids.itemIds.length;
  work.assignments = work.ids.assignmentIds.length;
  return work;
}

function sortPlaces(places: HumanWorkPlace[]): HumanWorkPlace[] {
  return places.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) || a.id.localeCompare(b.id) : a.kind === "queue" ? -1 : 1));
}

/** Two findings as one (e.g. batch after batch of an import); a row found twice counts once. */
export function mergeHumanWork(a: HumanWork, b: HumanWork): HumanWork {
  if (!hasHumanWork(a)) return b;
  if (!hasHumanWork(b)) return a;
  const union = (x: string[], y: string[]) => [...new Set([...x, ...y])];
  const ids: HumanWorkIds = {
    labelIds: union(a.ids.labelIds, b.ids.labelIds),
    adjudicationIds: union(a.ids.adjudicationIds, b.ids.adjudicationIds),
    itemIds: union(a.ids.itemIds, b.ids.itemIds),
    assignmentIds: union(a.ids.assignmentIds, b.ids.assignmentIds),
  };
  const places = new Map<string, HumanWorkPlace>();
  for (const place of [...a.places, ...b.places]) {
    const key = `${place.kind} ${place.id}`;
    const known = places.get(key);
    if (!known) places.set(key, { ...place });
    else {
      known.humanLabels += place.humanLabels;
      known.adjudications += place.adjudications;
      known.annotationItems += place.annotationItems;
      known.assignments += place.assignments;
    }
  }
  const solutionIds = union(a.solutionIds, b.solutionIds).sort();
  return {
    solutions: solutionIds.length,
    humanLabels: ids.labelIds.length,
    adjudications: ids.adjudicationIds.length,
    annotationItems: ids.itemIds.length,
    assignments: ids.assignmentIds.length,
    places: sortPlaces([...places.values()]),
    ids,
    solutionIds,
  };
}

/** The counts alone, as a run's summary or an error carries them. */
export function humanWorkCounts(work: HumanWorkCounts): HumanWorkCounts {
  const { solutions, humanLabels, adjudications, annotationItems, assignments, places } = work;
  return { solutions, humanLabels, adjudications, annotationItems, assignments, places: places.map((p) => ({ ...p })) };
}

/**
 * Deletes exactly these rows: labels and adjudications first, then
 * assignments, then items (each is held by the next through a RESTRICT key).
 * A row that is gone already is an error: the caller acts on what it found,
 * inside the transaction that found it.
 */
export async function deleteHumanWork(tx: Tx, ids: HumanWorkIds): Promise<void> {
  const labels = [...ids.labelIds, ...ids.adjudicationIds];
  const steps: Array<[table: string, ids: string[], run: () => Promise<number>]> = [
    ["HumanLabel", labels, () => tx.$executeRaw`DELETE FROM "HumanLabel" WHERE id = ANY(${labels}::text[])`],
    ["AnnotationAssignment", ids.assignmentIds, () => tx.$executeRaw`DELETE FROM "AnnotationAssignment" WHERE id = ANY(${ids.assignmentIds}::text[])`],
    ["AnnotationItem", ids.itemIds, () => tx.$executeRaw`DELETE FROM "AnnotationItem" WHERE id = ANY(${ids.itemIds}::text[])`],
  ];
  for (const [table, wanted, run] of steps) {
    if (wanted.length === 0) continue;
    const deleted = await run();
    if (deleted !== wanted.length) throw new Error(`deleting human work: ${wanted.length} ${table} rows were found but ${deleted} deleted (they changed meanwhile); try again`);
  }
}
