import type { ServiceArgs } from "../args";

/** The rollouts behind one Q-value, with their answers and whether each was right. */
export async function listRollouts({ db, input }: ServiceArgs<{ runId: string; segmentationId: string; prefixLength: number }>) {
  return db.rollout.findMany({
    where: input,
    orderBy: { sampleIndex: "asc" },
    select: { sampleIndex: true, seed: true, text: true, extractedAnswer: true, correct: true, completionTokens: true },
  });
}
