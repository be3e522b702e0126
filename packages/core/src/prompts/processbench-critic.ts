import { chunkText, type ChunkLike } from "../chunks/chunk-like";
import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

/**
 * Critic prompt for ProcessBench (spec §4): the model reads the whole solution,
 * paragraph-tagged from 0, and names the earliest wrong paragraph, or -1. The
 * wording is ours; the tagging and the boxed index follow the benchmark's format.
 */
export const PROCESSBENCH_CRITIC_PROMPT = definePromptTemplate({
  name: "processbench-critic",
  version: 1,
  purpose: "ProcessBench critic: read the whole solution, paragraph-tagged from 0, and return the index of the earliest error or -1 in \\boxed{}.",
  slots: ["problem", "tagged_response"],
  text: [
    "Below is a math problem and a proposed solution. The solution is split into paragraphs; each paragraph is wrapped in tags that give its index, counting from 0.",
    "",
    "Problem:",
    "{problem}",
    "",
    "Solution:",
    "{tagged_response}",
    "",
    "Check the solution one paragraph at a time, in order, looking for mistakes in reasoning, calculation or use of the problem's conditions. Stop at the first paragraph that contains a mistake and report its index. If no paragraph contains a mistake, report -1.",
    "",
    "Put only the index (or -1) inside \\boxed{} at the end of your answer.",
  ].join("\n"),
});

/** `<paragraph_i>\n{step}\n</paragraph_i>`, indexed from 0, separated by a blank line. */
export function formatProcessBenchParagraphs(steps: readonly ChunkLike[]): string {
  return steps.map((step, index) => `<paragraph_${index}>\n${chunkText(step)}\n</paragraph_${index}>`).join("\n\n");
}

export function buildProcessBenchCriticPrompt(values: { problem: string; steps: readonly ChunkLike[] }): RenderedPrompt {
  return fillPromptTemplate(PROCESSBENCH_CRITIC_PROMPT, {
    problem: values.problem,
    tagged_response: formatProcessBenchParagraphs(values.steps),
  });
}
