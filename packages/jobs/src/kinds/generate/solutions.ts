import { buildSelfSegmentingPolicyPrompt, derivedSeed, SegmentationError, solutionFromTaggedOutput, type LocatedChunk } from "@stepwiser/core";
import { gradeRolloutAnswer } from "../../grading/run-grading";
import type { RunContext } from "../../runs/run-kind";
import type { GenerateConfig } from "./config";

/** What a unit knows about the problem it solves. */
export interface ProblemToSolve {
  id: string;
  text: string;
  textHash: string;
  referenceAnswer: string;
}

/** One sample of the policy, parsed and graded. */
export interface GeneratedSolution {
  sampleIndex: number;
  seed: number;
  finishReason: string;
  /** The blank-line-joined chunks when the tags reconstruct, else the raw output as the server sent it. */
  text: string;
  /** null when the output is not a valid self-segmentation. */
  chunks: LocatedChunk[] | null;
  segmentationError: { kind: string; message: string } | null;
  finalAnswer: string | null;
  correct: boolean;
}

/**
 * Seed of sample 0 for a problem: from the run seed and the problem text's
 * hash (not its row id), so the same config reproduces the same solutions
 * from any copy of the dataset. Sample i uses this + i.
 */
export function problemSeed(runSeed: number, textHash: string): number {
  return derivedSeed(runSeed, "generate", textHash);
}

/**
 * N solutions to one problem from one request with n = N, so the replica
 * prefills the prompt once.
 */
export async function sampleSolutions(ctx: RunContext<GenerateConfig>, problem: ProblemToSolve): Promise<GeneratedSolution[]> {
  const { config } = ctx;
  const policy = config.policy!;
  const { client } = ctx.endpoints.get(policy);
  const base = problemSeed(config.seed, problem.textHash);
  const result = await client.generate({
    model: policy.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }, config.promptTemplateId).text }] },
    n: config.samplesPerProblem,
    seed: base,
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    affinityKey: `generate:${problem.textHash}`,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  if (result.samples.length !== config.samplesPerProblem) {
    throw new Error(`asked ${policy.model} for ${config.samplesPerProblem} samples, got ${result.samples.length}`);
  }
  const samples = [...result.samples].sort((a, b) => a.index - b.index);
  const solutions = samples.map((sample, i) => {
    let text = sample.text;
    let chunks: LocatedChunk[] | null = null;
    let segmentationError: GeneratedSolution["segmentationError"] = null;
    try {
      ({ text, chunks } = solutionFromTaggedOutput(sample.text));
    } catch (error) {
      // Kept as written: a repaired solution would no longer be the policy's.
      if (!(error instanceof SegmentationError)) throw error;
      segmentationError = { kind: error.kind, message: error.message };
    }
    return { sampleIndex: i, seed: base + i, finishReason: sample.finishReason, text, chunks, segmentationError };
  });
  // All samples at once on the grading threads, each under the hard limit.
  const graded = await Promise.all(solutions.map((solution) => gradeRolloutAnswer(problem.referenceAnswer, solution.text)));
  return solutions.map((solution, i) => ({ ...solution, finalAnswer: graded[i]!.pred.extracted, correct: graded[i]!.equivalent }));
}
