import { runCost, type RunCost, type TokenCounts } from "@stepwiser/core";
import type { Db, EndpointRole } from "@stepwiser/db";
import type { StoredRun } from "./read-run";
import { isRunKind, RUN_KINDS } from "./registry";
import type { AnyRunKind, RunEndpoint } from "./runs/run-kind";
import { recordRunSpend } from "./runs/run-spend-record";
import { tryReadStoredConfig } from "./runs/stored-config";

/**
 * The endpoint snapshots a stored run's counters cover, by role, as its kind
 * names them (a role the run does not use, rule segmentation, is left out);
 * null when its config does not read.
 */
export function runEndpoints(run: StoredRun): RunEndpoint[] | null {
  if (!isRunKind(run.kind)) return null;
  const kind: AnyRunKind = RUN_KINDS[run.kind];
  const config: unknown = tryReadStoredConfig(run, kind.storedSchema);
  return config === null ? null : kind.endpoints(config);
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
  const endpoints = runEndpoints(run);
  if (endpoints === null) return { models: [], cost: { usd: null, reason: "the run's stored config does not read" } };
  return { models: endpoints.map(({ role, endpoint }) => ({ role, model: endpoint.model })), cost: runCost(tokens, endpoints.map(({ endpoint }) => endpoint)) };
}

/**
 * Records the models and cost of runs stored before they were recorded (see
 * `recordRunSpend`), a page at a time; a run whose config does not read gets
 * none. Returns how many runs it recorded. The worker runs it when it starts.
 */
export async function recordStoredRunsSpend(db: Db, pageSize = 200): Promise<number> {
  let recorded = 0;
  for (;;) {
    const page = await db.run.findMany({
      where: { spendRecordedAt: null },
      orderBy: { id: "asc" },
      take: pageSize,
      select: { id: true, kind: true, config: true, promptTokens: true, completionTokens: true, cachedTokens: true },
    });
    for (const run of page) await recordRunSpend(db, run.id, runEndpoints(run) ?? [], run);
    recorded += page.length;
    if (page.length < pageSize) return recorded;
  }
}
