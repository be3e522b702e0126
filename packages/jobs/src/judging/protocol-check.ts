import { DEFAULT_ENDPOINT_PROTOCOLS, InputError, JUDGE_PROTOCOLS, judgeProtocolRef, protocolsForRunKind, type JudgeProtocolId, type JudgeRunKind } from "@stepwiser/core";
import type { EndpointSnapshot } from "../inference/endpoint-clients";
import type { ProtocolOptions } from "./judge-run";

const WHY_NOT: Readonly<Record<JudgeRunKind, string>> = {
  benchmark: "a ProcessBench prediction is the first step a judge calls wrong, and this protocol gives no verdict per step",
  judge: "a judge run stores a verdict for every chunk, and this protocol does not give one per chunk",
  chunk_reset: "chunk-reset needs a verdict on the newest chunk, and this protocol does not give one per chunk",
  best_of_n: "best-of-N needs a score for every candidate solution, and this protocol names a first-error index only",
};

/** The protocols an endpoint snapshot declares (snapshots taken before endpoints declared any: the chat defaults). */
export function endpointProtocols(endpoint: EndpointSnapshot): readonly string[] {
  return endpoint.protocols ?? DEFAULT_ENDPOINT_PROTOCOLS;
}

/**
 * A new submission's checks on its judge protocol, each naming its field: the kind
 * can use the protocol, the judge endpoint declares it, and its options fit it.
 */
export function checkJudgeProtocol(
  kind: JudgeRunKind,
  config: { protocol: JudgeProtocolId; protocolOptions: ProtocolOptions; samples: number; samplesField: string },
  judge: EndpointSnapshot,
  judgeField: string,
): void {
  const { protocol } = config;
  const info = JUDGE_PROTOCOLS[protocol];
  const allowed = protocolsForRunKind(kind);
  if (!allowed.includes(protocol)) {
    throw new InputError(`${info.label} (${protocol}) cannot judge a ${kind.replace(/_/g, "-")} run: ${WHY_NOT[kind]}; use one of ${allowed.join(", ")}`, { field: "protocol" });
  }
  const spoken = endpointProtocols(judge);
  if (!spoken.includes(protocol)) {
    throw new InputError(
      `endpoint "${judge.name}" (model ${judge.model}) does not speak ${judgeProtocolRef(protocol)}; it declares ${spoken.length ? spoken.join(", ") : "no protocol"}. Add ${protocol} to the endpoint's protocols if its model speaks it (${serverNeeds(protocol)}).`,
      { field: judgeField },
    );
  }
  if (protocol === "discriminative-prm" && config.samples !== 1) {
    throw new InputError(`a discriminative PRM's step probabilities are deterministic: ${config.samples} samples would be ${config.samples} copies of one score; set ${config.samplesField} to 1`, { field: config.samplesField });
  }
  if (config.protocolOptions.executeCode && protocol !== "genprm") {
    throw new InputError(`only genprm runs the code blocks of its rationales; ${protocol} has none to run`, { field: "protocolOptions.executeCode" });
  }
}

function serverNeeds(protocol: JudgeProtocolId): string {
  const api = JUDGE_PROTOCOLS[protocol].api;
  if (api === "pooling") return "a reward model served with vLLM's pooling runner, POST /pooling";
  if (api === "chat-logprobs") return "chat completions with logprobs and top_logprobs";
  return "chat completions";
}
