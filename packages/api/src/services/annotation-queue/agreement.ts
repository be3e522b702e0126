import { annotationAgreement } from "@stepwiser/core";
import type { AuditDemoQueue } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { queueNotFound } from "./membership";

/**
 * Inter-annotator agreement of a queue (Fleiss' κ over fully rated units,
 * Cohen's κ per pair) and the units annotators disagree on. Only submitted
 * work counts: an undone submission is out until it is sent again, and then
 * its latest rows count. The computation is `annotationAgreement` in core.
 * For the demo queue it also says how its simulated annotators were made.
 */
export async function queueAgreement({ db, input }: ServiceArgs<{ queueId: string }>) {
  const queue = await db.annotationQueue.findUnique({ where: { id: input.queueId }, select: { id: true, scheme: true, annotatorsPerItem: true } });
  if (!queue) throw queueNotFound(input.queueId);
  const submitted = { item: { queueId: queue.id }, status: "submitted" as const };
  const [items, submissions, labels, demoMarker] = await Promise.all([
    db.annotationItem.findMany({
      where: { queueId: queue.id },
      select: { id: true, solutionId: true, position: true, adjudicatedAt: true, solution: { select: { externalId: true } } },
    }),
    db.annotationAssignment.findMany({ where: submitted, select: { itemId: true, annotatorId: true, firstErrorIndex: true } }),
    db.humanLabel.findMany({
      where: { queueId: queue.id, source: "annotation", assignment: { status: "submitted" } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { itemId: true, chunkId: true, authorId: true, rating: true, createdAt: true, chunk: { select: { index: true } } },
    }),
    db.auditLog.findFirst({ where: { action: "demo.queue_seeded", entityType: "AnnotationQueue", entityId: queue.id }, select: { after: true } }),
  ]);
  const annotatorIds = [...new Set(submissions.map((s) => s.annotatorId))];
  const annotators = await db.user.findMany({ where: { id: { in: annotatorIds } }, select: { id: true, name: true } });
  const computed = annotationAgreement({
    scheme: queue.scheme,
    annotatorsPerItem: queue.annotatorsPerItem,
    items: items.map((item) => ({ itemId: item.id, solutionId: item.solutionId, externalId: item.solution.externalId, position: item.position, adjudicated: item.adjudicatedAt !== null })),
    annotators,
    labels: labels.map((row) => ({ itemId: row.itemId!, chunkId: row.chunkId, chunkIndex: row.chunk.index, annotatorId: row.authorId, rating: row.rating, createdAt: row.createdAt })),
    submissions,
  });
  return { ...computed, simulatedAnnotators: simulatedAnnotatorsOf(demoMarker?.after) };
}

/**
 * The demo queue's annotators are simulated: each rates the simulated world's
 * true label of every chunk, flipped at a seeded, stated error rate. The launcher
 * wrote who and at what rate in the queue's demo marker; null for any other queue.
 */
function simulatedAnnotatorsOf(after: unknown): Array<{ name: string; email: string; errorRate: number }> | null {
  const listed = (after as AuditDemoQueue | null | undefined)?.simulatedAnnotators;
  if (!Array.isArray(listed)) return null;
  return listed.filter((a) => typeof a.name === "string" && typeof a.email === "string" && typeof a.errorRate === "number").map(({ name, email, errorRate }) => ({ name, email, errorRate }));
}
