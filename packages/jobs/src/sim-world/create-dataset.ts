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
export async function createSimWorldDataset(db: Db, options: SimDatasetOptions): Promise<{ datasetId: string; solutions: number }> {
  const seed = options.seed ?? 0;
  const rates = { errorRate: options.errorRate ?? 0.15, recoveryRate: options.recoveryRate ?? 0.1 };
  const policy = createSimPolicy(rates);
  const perProblem = options.solutionsPerProblem ?? 1;
  const dataset = await db.dataset.create({
    data: { name: options.name, source: "sim-world", license: "generated", version: `seed-${seed}`, status: "ready" },
  });
  let written = 0;
  // Written a batch of problems at a time (one bulk insert per table), so datasets of 100k solutions take minutes, not an hour.
  for (let from = 0; from < options.problems; from += PROBLEMS_PER_BATCH) {
    const problems = [];
    for (let i = from; i < Math.min(options.problems, from + PROBLEMS_PER_BATCH); i++) {
      const problem = generateProblem(seed + i);
      const solutions = Array.from({ length: perProblem }, (_, j) => {
        const output = policy.generate({
          prompt: { kind: "chat", messages: [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }).text }], continueFinalMessage: false },
          seed: j,
          temperature: 1,
        });
        const { text, chunks } = solutionFromTaggedOutput(output);
        return { externalId: `sim-${seed + i}-${j}`, text, chunks, truth: truthOfSolution(problem, chunks), values: trueQValues(problem, chunks, rates) };
      });
      problems.push({ seed: seed + i, problem, textHash: createHash("sha256").update(problem.text).digest("hex"), solutions });
    }
    const storedProblems = await db.problem.createManyAndReturn({
      data: problems.map(({ seed: worldSeed, problem, textHash }) => ({
        datasetId: dataset.id,
        textHash,
        text: problem.text,
        referenceAnswer: String(problem.answer),
        metadata: { worldSeed, worldId: problem.id },
      })),
      select: { id: true, textHash: true },
    });
    const problemIds = new Map(storedProblems.map((p) => [p.textHash, p.id]));
    const solutions = problems.flatMap(({ textHash, solutions }) => solutions.map((solution) => ({ ...solution, problemId: problemIds.get(textHash)! })));
    const storedSolutions = await db.solution.createManyAndReturn({
      data: solutions.map(({ externalId, text, truth, values, problemId }) => ({
        datasetId: dataset.id,
        problemId,
        externalId,
        subset: "sim",
        generator: "sim-policy",
        text,
        finalAnswer: truth.finalAnswer === null ? null : String(truth.finalAnswer),
        finalAnswerCorrect: truth.finalAnswerCorrect,
        sourceFirstErrorIndex: truth.firstErrorIndex,
        metadata: { trueQ0: values.q0, trueQ: values.q, rates },
      })),
      select: { id: true, externalId: true },
    });
    const solutionIds = new Map(storedSolutions.map((t) => [t.externalId, t.id]));
    const segmentations = await db.segmentation.createManyAndReturn({
      data: solutions.map(({ externalId }) => ({ solutionId: solutionIds.get(externalId)!, method: "self-segmented" })),
      select: { id: true, solutionId: true },
    });
    const segmentationIds = new Map(segmentations.map((s) => [s.solutionId, s.id]));
    await db.chunk.createMany({
      data: solutions.flatMap(({ externalId, chunks }) => {
        const segmentationId = segmentationIds.get(solutionIds.get(externalId)!)!;
        return chunks.map((c) => ({ segmentationId, index: c.index, text: c.text, startOffset: c.startOffset, endOffset: c.endOffset }));
      }),
    });
    written += solutions.length;
  }
  return { datasetId: dataset.id, solutions: written };
}

/** Problems generated and written per bulk insert. */
const PROBLEMS_PER_BATCH = 500;
