import { limitedToMemberQueues } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { visibleQueuesWhere } from "./membership";
import { queueCounts } from "./queue-counts";

/**
 * Every annotation queue the caller may see (an annotator: the queues they are a member of), archived ones
 * too (with `archivedAt`), newest first, with its progress and the caller's share.
 */
export async function listVisibleQueues({ db, user, input }: ServiceArgs<{ datasetId?: string }>) {
  const queues = await db.annotationQueue.findMany({
    where: { ...(input.datasetId ? { datasetId: input.datasetId } : {}), ...visibleQueuesWhere(user) },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: {
      id: true,
      name: true,
      datasetId: true,
      dataset: { select: { name: true } },
      scheme: true,
      annotatorsPerItem: true,
      blind: true,
      archivedAt: true,
      createdAt: true,
    },
  });
  const limited = limitedToMemberQueues(user.role);
  const counts = await queueCounts(db, queues.map((q) => q.id), user.id);
  return queues.map(({ dataset, ...queue }) => {
    const { items, completedItems, adjudicatedItems, submissions, mySubmitted } = counts.get(queue.id)!;
    // Annotators see no datasets: the name stays with those who read research data.
    return { ...queue, datasetName: limited ? null : dataset.name, items, completedItems, adjudicatedItems, submissions, mySubmitted };
  });
}
