import { runCost, type RunCost, type SpendingEndpoint, type TokenCounts } from "@stepwiser/core";
import type { EndpointRole, RunKind } from "@stepwiser/db";
import type { EndpointSnapshot } from "../inference/endpoint-clients";
import { tryReadRunConfig, type RunWithConfig, type StoredRun } from "./read-run-config";

/**
 * The snapshot keys (the endpoints' roles) of the endpoints each kind's token counters cover, in the order
 * lists show their models. A chunk-reset run counts its policy's and its judge's
 * tokens together; imports and exports send no model requests.
 */
export const RUN_ENDPOINT_ROLES = {
  import: [],
  export: [],
  generate: ["policy"],
  annotate: ["policy"],
  segment: ["segmenter"],
  judge: ["judge"],
  benchmark: ["judge"],
  best_of_n: ["judge"],
  chunk_reset: ["policy", "judge"],
} as const satisfies Record<RunKind, readonly EndpointRole[]>;

/** The endpoint snapshots a run's counters cover, by role; a role the run does not use (rule segmentation) is left out. */
export function runEndpoints(run: RunWithConfig): { role: EndpointRole; endpoint: EndpointSnapshot }[] {
  const used = (role: EndpointRole, endpoint: EndpointSnapshot | null | undefined) => (endpoint ? [{ role, endpoint }] : []);
  switch (run.kind) {
    case "import":
    case "export":
      return [];
    case "generate":
    case "annotate":
      return used("policy", run.config.policy);
    case "segment":
      return used("segmenter", run.config.segmenter);
    case "judge":
    case "benchmark":
    case "best_of_n":
      return used("judge", run.config.judge);
    case "chunk_reset":
      return [...used("policy", run.config.policy), ...used("judge", run.config.judge)];
  }
}

/** What lists show of a run's models and cost, read from its config snapshot. */
export interface RunSpend {
  /** The model of each endpoint the run sends requests to, by role. */
  models: { role: EndpointRole; model: string }[];
  cost: RunCost;
}

/**
 * A run's models and its cost at the prices snapshotted at launch (`runCost`): a
 * run whose config does not read still lists, without models or cost.
 */
export function runSpend(run: StoredRun, tokens: TokenCounts): RunSpend {
  const config = tryReadRunConfig(run);
  if (config === null) return { models: [], cost: { usd: null, reason: "the run's stored config does not read" } };
  const endpoints = runEndpoints({ kind: run.kind, config } as RunWithConfig);
  const spending: SpendingEndpoint[] = endpoints.map(({ endpoint }) => endpoint);
  return { models: endpoints.map(({ role, endpoint }) => ({ role, model: endpoint.model })), cost: runCost(tokens, spending) };
}
