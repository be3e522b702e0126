import { limitedToMemberQueues } from "@stepwiser/core";
import { z } from "zod";
import { queueViewProcedure } from "../../trpc";
import { visibleQueuesWhere } from "./membership";
import { queueCounts } from "./queue-counts";

export const listQueuesInput = z.object({ datasetId: z.string().min(1).optional() });

/**
 * Every annotation queue the caller may see (an annotator: the queues they are a member of), archived ones
 * too (with `archivedAt`), newest first, with its progress and the caller's share.
 */
export const listQueues = queueViewProcedure.input(listQueuesInput).query(async ({ ctx, input }) => {
  const queues = await ctx.db.annotationQueue.findMany({
    where: { ...(input.datasetId ? { datasetId: input.datasetId } : {}), ...visibleQueuesWhere(ctx.user) },
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
  const limited = limitedToMemberQueues(ctx.user.role);
  const counts = await queueCounts(ctx.db, queues.map((q) => q.id), ctx.user.id);
  return queues.map(({ dataset, ...queue }) => {
    const { items, completedItems, adjudicatedItems, submissions, mySubmitted } = counts.get(queue.id)!;
    // Annotators see no datasets: the name stays with those who read research data.
    return { ...queue, datasetName: limited ? null : dataset.name, items, completedItems, adjudicatedItems, submissions, mySubmitted };
  });
});
