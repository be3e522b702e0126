import { JUDGE_PROTOCOL_IDS, JUDGE_PROTOCOLS, judgeProtocolRef, type JudgeProtocolId, type JudgeServerApi } from "@stepwiser/core";

/** What a protocol needs from the server behind an endpoint, as the endpoint form and the launch form say it. */
export const SERVER_API_NEEDS: Readonly<Record<JudgeServerApi, string>> = {
  chat: "chat completions",
  "chat-logprobs": "chat completions with logprobs (top_logprobs)",
  pooling: "vLLM pooling runner (--runner pooling, POST /pooling)",
};

/** "ThinkPRM (thinkprm@v1)": the name and the versioned id a run records. */
export function protocolTitle(id: JudgeProtocolId): string {
  return `${JUDGE_PROTOCOLS[id].label} (${judgeProtocolRef(id)})`;
}

/** Every protocol with its label and what it needs, in registry order: the endpoint form's checkboxes. */
export function endpointProtocolChoices(): { id: JudgeProtocolId; label: string; needs: string }[] {
  return JUDGE_PROTOCOL_IDS.map((id) => ({ id, label: JUDGE_PROTOCOLS[id].label, needs: SERVER_API_NEEDS[JUDGE_PROTOCOLS[id].api] }));
}

/** The checked protocols in registry order (a form reads checkboxes in any order). */
export function checkedProtocols(checked: Iterable<string>): JudgeProtocolId[] {
  const set = new Set(checked);
  return JUDGE_PROTOCOL_IDS.filter((id) => set.has(id));
}

/** Labels of stored protocol ids; ids the registry does not know are shown as they are. */
export function protocolLabels(ids: readonly string[]): string[] {
  return ids.map((id) => ((JUDGE_PROTOCOL_IDS as readonly string[]).includes(id) ? JUDGE_PROTOCOLS[id as JudgeProtocolId].label : id));
}
