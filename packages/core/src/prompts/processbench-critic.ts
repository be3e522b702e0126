import { chunkText, type ChunkLike } from "../chunks/chunk-like";
import { definePromptTemplate, fillPromptTemplate, type PromptTemplate, type RenderedPrompt } from "./template";

/**
 * Critic prompt for ProcessBench (spec §4): the model reads the whole solution,
 * paragraph-tagged from 0, and names the earliest wrong paragraph, or -1. The
 * wording is ours; the tagging and the boxed index follow the benchmark's format.
 * Kept for the runs that used it; new runs use the official wording, v2.
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

/**
 * The official ProcessBench critic prompt, word for word: `code/templates/critique_template.txt`
 * of github.com/QwenLM/ProcessBench (commit 606615c147d1c0e3e96e5a7cf567d2c906223c41, unchanged
 * up to e8024636bcabdf8bd514440551b531d3f90dd18b), from ProcessBench (Zheng et al., 2024),
 * Apache-2.0 (the license ProcessBench is published under; the repository itself carries no
 * LICENSE file). `code/run_eval.py` reads the file, strips it and fills it with
 * Python's `str.format`, so the file's `\boxed{{}}` reaches the model as `\boxed{}`, which is
 * what this text holds; its slots are ours by the same names. Its `prepare_input_boxed` tags
 * the steps exactly as `formatProcessBenchParagraphs` does (`<paragraph_{sdx}>\n{step}\n</paragraph_{sdx}>`
 * from `enumerate`, so from 0, each followed by a blank line and the whole stripped, i.e. joined
 * by a blank line) and sends the prompt as the only user message. Read answers with
 * `parseCriticPredictionOfficial`, the official scorer's rule.
 */
export const PROCESSBENCH_CRITIC_PROMPT_V2 = definePromptTemplate({
  name: "processbench-critic",
  version: 2,
  purpose:
    "ProcessBench critic, the official template (QwenLM/ProcessBench critique_template.txt): read the whole solution, paragraph-tagged from 0, and return the index of the earliest error or -1 in \\boxed{}.",
  slots: ["problem", "tagged_response"],
  text: [
    "The following is a math problem and a solution (split into paragraphs, enclosed with tags and indexed from 0):",
    "",
    "[Math Problem]",
    "",
    "{problem}",
    "",
    "[Solution]",
    "",
    "{tagged_response}",
    "",
    'Your task is to review and critique the solution paragraph by paragraph. Once you identify an error in a paragraph, return the index of the paragraph where the earliest error occurs. Otherwise, return the index of -1 (which typically denotes "not found").',
    "",
    "Please put your final answer (i.e., the index) in \\boxed{}.",
  ].join("\n"),
});

/** The critic templates a benchmark run may use: v1 (ours, kept for the runs made with it) and v2 (official). */
export const PROCESSBENCH_CRITIC_TEMPLATE_IDS = [PROCESSBENCH_CRITIC_PROMPT.id, PROCESSBENCH_CRITIC_PROMPT_V2.id] as const;
export type ProcessBenchCriticTemplateId = (typeof PROCESSBENCH_CRITIC_TEMPLATE_IDS)[number];
/** New critic runs use the official wording, so their F1s compare with published ones. */
export const DEFAULT_PROCESSBENCH_CRITIC_TEMPLATE_ID: ProcessBenchCriticTemplateId = PROCESSBENCH_CRITIC_PROMPT_V2.id;

const CRITIC_TEMPLATES = {
  [PROCESSBENCH_CRITIC_PROMPT.id]: PROCESSBENCH_CRITIC_PROMPT,
  [PROCESSBENCH_CRITIC_PROMPT_V2.id]: PROCESSBENCH_CRITIC_PROMPT_V2,
} as const satisfies Record<ProcessBenchCriticTemplateId, PromptTemplate<"problem" | "tagged_response">>;

export function getProcessBenchCriticTemplate(id: ProcessBenchCriticTemplateId): PromptTemplate<"problem" | "tagged_response"> {
  return CRITIC_TEMPLATES[id];
}

/**
 * `<paragraph_i>\n{step}\n</paragraph_i>`, indexed from 0, separated by a blank line:
 * the official `prepare_input_boxed` tagging, for both versions.
 */
export function formatProcessBenchParagraphs(steps: readonly ChunkLike[]): string {
  return steps.map((step, index) => `<paragraph_${index}>\n${chunkText(step)}\n</paragraph_${index}>`).join("\n\n");
}

/** The critic prompt of the given version (by default the official v2). */
export function buildProcessBenchCriticPrompt(
  values: { problem: string; steps: readonly ChunkLike[] },
  templateId: ProcessBenchCriticTemplateId = DEFAULT_PROCESSBENCH_CRITIC_TEMPLATE_ID,
): RenderedPrompt {
  return fillPromptTemplate(getProcessBenchCriticTemplate(templateId), {
    problem: values.problem,
    tagged_response: formatProcessBenchParagraphs(values.steps),
  });
}
