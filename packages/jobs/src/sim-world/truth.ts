import { truthOfSolution, tryParseProblem, WorldParseError } from "@stepwiser/inference/sim";

/**
 * The simulated world's truth about each chunk of a solution: whether the
 * chunk is right (a correct step or a sound recovery), read from the problem
 * and chunk texts as the world wrote them. A step that correctly continues from
 * a wrong value is not right. Null when the text is not this world's (an
 * imported dataset), so callers can tell "no truth known" from "all wrong".
 */
export function simWorldChunkTruth(problemText: string, chunkTexts: readonly string[]): boolean[] | null {
  const problem = tryParseProblem(problemText.trim());
  if (!problem) return null;
  try {
    return truthOfSolution(problem, chunkTexts).chunks.map((chunk) => chunk.correct);
  } catch (error) {
    if (error instanceof WorldParseError) return null;
    throw error;
  }
}
