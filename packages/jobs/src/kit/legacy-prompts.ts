import { LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID } from "@stepwiser/core";

/** A stored generate or annotate config without `promptTemplateId` was made before runs named the policy prompt: it used v1. */
export function withLegacyPolicyPrompt(stored: unknown): unknown {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored) || "promptTemplateId" in stored) return stored;
  return { ...stored, promptTemplateId: LEGACY_SELF_SEGMENTING_POLICY_PROMPT_ID };
}
