import { createHash } from "node:crypto";
import { buildSelfSegmentingPolicyPrompt, solutionFromTaggedOutput } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createSimPolicy, generateProblem, trueQValues, truthOfSolution } from "@stepwiser/inference/sim";

export interface SimDatasetOptions {
  name: string;
  problems: number;
  solutionsPerProblem?: number;
  /** Problem i is world problem seed + i; solution j of it is sampled with seed j. */
  seed?: number;
  errorRate?: number;
  recoveryRate?: number;
}

/**
 * A dataset from the simulated world, written by the sim policy's own sampler,
 * with the world's ground truth kept on each solution (`sourceFirstErrorIndex`
 * and `metadata.trueQ0/trueQ`): what annotation rules and judges are scored against.
 */
export async function createSimWorldDataset(db: Db, options: SimDatasetOptions): Promise<{ datasetId: string; trajectories: number }> {
  const seed = options.seed ?? 0;
  const rates = { errorRate: options.errorRate ?? 0.15, recoveryRate: options.recoveryRate ?? 0.1 };
  const policy = createSimPolicy(rates);
  const perProblem = options.solutionsPerProblem ?? 1;
  const dataset = await db.dataset.create({
    data: { name: options.name, source: "sim-world", license: "generated", version: `seed-${seed}`, status: "ready" },
  });
  let trajectories = 0;
  for (let i = 0; i < options.problems; i++) {
    const problem = generateProblem(seed + i);
    const stored = await db.problem.create({
      data: {
        datasetId: dataset.id,
        textHash: createHash("sha256").update(problem.text).digest("hex"),
        text: problem.text,
        referenceAnswer: String(problem.answer),
        metadata: { worldSeed: seed + i, worldId: problem.id },
      },
    });
    for (let j = 0; j < perProblem; j++) {
      const output = policy.generate({
        prompt: { kind: "chat", messages: [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }).text }], continueFinalMessage: false },
        seed: j,
        temperature: 1,
      });
      const { text, chunks } = solutionFromTaggedOutput(output);
      const truth = truthOfSolution(problem, chunks);
      const values = trueQValues(problem, chunks, rates);
      await db.trajectory.create({
        data: {
          datasetId: dataset.id,
          problemId: stored.id,
          externalId: `sim-${seed + i}-${j}`,
          subset: "sim",
          generator: "sim-policy",
          text,
          finalAnswer: truth.finalAnswer === null ? null : String(truth.finalAnswer),
          finalAnswerCorrect: truth.finalAnswerCorrect,
          sourceFirstErrorIndex: truth.firstErrorIndex,
          metadata: { trueQ0: values.q0, trueQ: values.q, rates },
          segmentations: {
            create: {
              method: "self-segmented",
              chunks: { create: chunks.map((c) => ({ index: c.index, text: c.text, startOffset: c.startOffset, endOffset: c.endOffset })) },
            },
          },
        },
      });
      trajectories += 1;
    }
  }
  return { datasetId: dataset.id, trajectories };
}
