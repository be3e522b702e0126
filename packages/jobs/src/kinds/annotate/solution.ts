import { extractAnswer } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { gradeSolutionFinalAnswer } from "../../grading/run-grading";
import type { SolutionUnderAnnotation } from "./rollouts";

/** One planned solution as a unit annotates it, with whether its own final answer is right. */
export async function loadSolutionForAnnotation(db: Db | Prisma.TransactionClient, segmentationId: string) {
  const segmentation = await db.segmentation.findUniqueOrThrow({
    where: { id: segmentationId },
    select: {
      chunks: { orderBy: { index: "asc" }, select: { id: true, text: true } },
      solution: { select: { id: true, datasetId: true, externalId: true, text: true, finalAnswerCorrect: true, problem: { select: { text: true, referenceAnswer: true } } } },
    },
  });
  const { solution: stored } = segmentation;
  const reference = stored.problem.referenceAnswer;
  if (!reference) throw new Error(`solution ${stored.externalId} has no reference answer to grade rollouts against`);
  if (segmentation.chunks.length === 0) throw new Error(`solution ${stored.externalId} has no chunks`);
  const solution: SolutionUnderAnnotation = {
    segmentationId,
    externalId: stored.externalId,
    problemText: stored.problem.text,
    referenceAnswer: reference,
    chunks: segmentation.chunks.map((c) => c.text),
  };
  // The solution is itself a rollout of its own last prefix.
  const finalCorrect = stored.finalAnswerCorrect ?? (extractAnswer(stored.text) !== null && (await gradeSolutionFinalAnswer(reference, stored.text)).equivalent);
  return { solution, chunkIds: segmentation.chunks.map((c) => c.id), finalCorrect, solutionId: stored.id, datasetId: stored.datasetId };
}
