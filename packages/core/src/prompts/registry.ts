import { CHUNK_SEGMENTER_PROMPT } from "./chunk-segmenter";
import { OUTCOME_PAIRWISE_PROMPT, OUTCOME_POINTWISE_PROMPT } from "./outcome";
import { PROCESSBENCH_CRITIC_PROMPT, PROCESSBENCH_CRITIC_PROMPT_V2 } from "./processbench-critic";
import { SELF_SEGMENTING_POLICY_PROMPT, SELF_SEGMENTING_POLICY_PROMPT_V2 } from "./self-segmenting-policy";
import { STEPWISER_JUDGE_PROMPT, STEPWISER_JUDGE_PROMPT_V2 } from "./stepwiser-judge";
import { PromptError, type PromptTemplate } from "./template";

/** Every template by id, old versions included: ids stored with past runs must stay resolvable. */
export const PROMPT_TEMPLATES = Object.freeze({
  [SELF_SEGMENTING_POLICY_PROMPT.id]: SELF_SEGMENTING_POLICY_PROMPT,
  [SELF_SEGMENTING_POLICY_PROMPT_V2.id]: SELF_SEGMENTING_POLICY_PROMPT_V2,
  [CHUNK_SEGMENTER_PROMPT.id]: CHUNK_SEGMENTER_PROMPT,
  [STEPWISER_JUDGE_PROMPT.id]: STEPWISER_JUDGE_PROMPT,
  [STEPWISER_JUDGE_PROMPT_V2.id]: STEPWISER_JUDGE_PROMPT_V2,
  [PROCESSBENCH_CRITIC_PROMPT.id]: PROCESSBENCH_CRITIC_PROMPT,
  [PROCESSBENCH_CRITIC_PROMPT_V2.id]: PROCESSBENCH_CRITIC_PROMPT_V2,
  [OUTCOME_POINTWISE_PROMPT.id]: OUTCOME_POINTWISE_PROMPT,
  [OUTCOME_PAIRWISE_PROMPT.id]: OUTCOME_PAIRWISE_PROMPT,
});

export type KnownPromptTemplateId = keyof typeof PROMPT_TEMPLATES;

export const PROMPT_TEMPLATE_IDS = Object.freeze(Object.keys(PROMPT_TEMPLATES) as KnownPromptTemplateId[]);

export function isPromptTemplateId(id: string): id is KnownPromptTemplateId {
  return Object.hasOwn(PROMPT_TEMPLATES, id);
}

export function getPromptTemplate(id: string): PromptTemplate {
  if (isPromptTemplateId(id)) return PROMPT_TEMPLATES[id];
  throw new PromptError("unknown-template", `unknown prompt template "${id}"; known templates: ${PROMPT_TEMPLATE_IDS.join(", ")}`);
}
