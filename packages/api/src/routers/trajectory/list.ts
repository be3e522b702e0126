import type { Prisma } from "@stepwiser/db";
import { z } from "zod";
import { viewerProcedure } from "../../trpc";

export const listTrajectoriesInput = z.object({
  datasetId: z.string().min(1),
  subset: z.string().min(1).optional(),
  generator: z.string().min(1).optional(),
  /** true: only solutions with a source first-error index; false: only error-free ones. */
  hasError: z.boolean().optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(200).default(50),
});

export const list = viewerProcedure.input(listTrajectoriesInput).query(async ({ ctx, input }) => {
  const where: Prisma.TrajectoryWhereInput = {
    datasetId: input.datasetId,
    ...(input.subset ? { subset: input.subset } : {}),
    ...(input.generator ? { generator: input.generator } : {}),
    ...(input.hasError === true ? { sourceFirstErrorIndex: { gte: 0 } } : {}),
    ...(input.hasError === false ? { sourceFirstErrorIndex: -1 } : {}),
  };
  const [total, items] = await Promise.all([
    ctx.db.trajectory.count({ where }),
    ctx.db.trajectory.findMany({
      where,
      // ProcessBench ids are "<subset>-<n>": creation order keeps them in file order.
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip: (input.page - 1) * input.pageSize,
      take: input.pageSize,
      select: {
        id: true,
        externalId: true,
        subset: true,
        generator: true,
        finalAnswerCorrect: true,
        sourceFirstErrorIndex: true,
        problem: { select: { text: true } },
      },
    }),
  ]);
  return {
    total,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: Math.max(1, Math.ceil(total / input.pageSize)),
    items: items.map(({ problem, ...t }) => ({ ...t, problemPreview: problem.text.slice(0, 200) })),
  };
});
