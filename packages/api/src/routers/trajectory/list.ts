import { Prisma } from "@stepwiser/db";
import { z } from "zod";
import { viewerProcedure } from "../../trpc";
import { filteredSolutionsFrom, listOrder, trajectoryFilterSchema } from "./filters";

export const listTrajectoriesInput = trajectoryFilterSchema.and(
  z.object({
    page: z.number().int().min(1).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
  }),
);

interface TrajectoryListRow {
  id: string;
  externalId: string;
  subset: string | null;
  generator: string;
  finalAnswerCorrect: boolean | null;
  sourceFirstErrorIndex: number | null;
  problemPreview: string;
  qMin: number | null;
  annotateFirstNegative: number | null;
  labelsDisagree: boolean | null;
  judgeFirstNegative: number | null;
  chunkCount: number | null;
}

/** One page of a dataset's solutions, filtered and sorted in the database, with the chosen runs' per-solution stats. */
export const list = viewerProcedure.input(listTrajectoriesInput).query(async ({ ctx, input }) => {
  const from = filteredSolutionsFrom(input);
  const [counted, items] = await Promise.all([
    ctx.db.$queryRaw<{ total: number }[]>(Prisma.sql`SELECT count(*)::int AS total ${from}`),
    ctx.db.$queryRaw<TrajectoryListRow[]>(Prisma.sql`
      SELECT t.id, t."externalId", t.subset, t.generator, t."finalAnswerCorrect", t."sourceFirstErrorIndex",
             (SELECT left(p.text, 200) FROM "Problem" p WHERE p.id = t."problemId") AS "problemPreview",
             a."qMin", a."firstNegative" AS "annotateFirstNegative", a."labelsDisagree",
             j."firstNegative" AS "judgeFirstNegative", COALESCE(a."chunkCount", j."chunkCount") AS "chunkCount"
      ${from}
      ${listOrder(input)}
      LIMIT ${input.pageSize} OFFSET ${(input.page - 1) * input.pageSize}`),
  ]);
  const total = counted[0]?.total ?? 0;
  return {
    total,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: Math.max(1, Math.ceil(total / input.pageSize)),
    items,
  };
});
