import { definePromptTemplate, fillPromptTemplate, type RenderedPrompt } from "./template";

/**
 * A segmenter model cuts an existing solution into chunks. Its answer is
 * accepted only if the chunks reproduce the solution exactly
 * (`locateTaggedChunks`), so the prompt insists on copying, not rewriting.
 * The solution comes last so that nothing after it can be mistaken for part
 * of it.
 */
export const CHUNK_SEGMENTER_PROMPT = definePromptTemplate({
  name: "chunk-segmenter",
  version: 1,
  purpose: "Segmenter prompt: wrap an existing solution, unchanged, in <chunk> tags, one logical step per chunk.",
  slots: ["solution"],
  text: [
    "Split the solution to a math problem below into chunks. A chunk is one logical step with a single purpose. Follow these rules:",
    "1. One clear objective per chunk.",
    "2. Start a new chunk as soon as the focus shifts.",
    "3. Start a new chunk at each new phase, for example when the solution moves from solving to verifying, or makes an aside.",
    "",
    "Wrap each chunk in <chunk> and </chunk> tags. The text inside the tags must be the original text, unaltered: copy every character and every line break exactly as it appears in the solution, and do not add, remove, reorder, correct or reformat anything. Put every part of the solution in exactly one chunk, in the original order, so that joining your chunks gives back the whole solution. Only the whitespace between chunks may differ.",
    "",
    "Reply with the same text wrapped in chunk tags and nothing else: no introduction, no comments, no code fences.",
    "",
    "Solution:",
    "{solution}",
  ].join("\n"),
});

export function buildChunkSegmenterPrompt(values: { solution: string }): RenderedPrompt {
  return fillPromptTemplate(CHUNK_SEGMENTER_PROMPT, { solution: values.solution });
}
