import { NotFoundError } from "@stepwiser/core";
import type { Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";

/** A solution with its problem and every segmentation's chunks: what both the plain view and the inspector show. */
export const solutionDetailSelect = {
  id: true,
  externalId: true,
  subset: true,
  generator: true,
  text: true,
  finalAnswer: true,
  finalAnswerCorrect: true,
  sourceFirstErrorIndex: true,
  dataset: { select: { id: true, name: true, source: true } },
  problem: { select: { id: true, text: true, referenceAnswer: true } },
  segmentations: {
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      method: true,
      chunks: {
        orderBy: { index: "asc" },
        select: { id: true, index: true, text: true, startOffset: true, endOffset: true },
      },
    },
  },
} satisfies Prisma.SolutionSelect;

/** A solution with its problem and every segmentation's chunks. */
export async function getSolution({ db, input }: ServiceArgs<{ id: string }>) {
  const solution = await db.solution.findUnique({
    where: { id: input.id },
    select: solutionDetailSelect,
  });
  if (!solution) throw new NotFoundError(`solution ${input.id} does not exist`);
  return solution;
}
