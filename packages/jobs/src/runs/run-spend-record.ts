import { runCost } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { RunEndpoint } from "./run-kind";

type Writer = Db | Prisma.TransactionClient;

/** A run's token counters as the database holds them. */
export interface StoredTokenCounters {
  promptTokens: bigint;
  completionTokens: bigint;
  cachedTokens: bigint;
}

/**
 * Records the models a run sends requests to (`RunModel`, by role) and its cost
 * so far, once: at launch, or for a run stored before they were recorded.
 */
export async function recordRunSpend(db: Writer, runId: string, endpoints: readonly RunEndpoint[], counters: StoredTokenCounters): Promise<void> {
  if (endpoints.length > 0) {
    await db.runModel.createMany({ data: endpoints.map(({ role, endpoint }) => ({ runId, role, model: endpoint.model })), skipDuplicates: true });
  }
  await db.run.update({ where: { id: runId }, data: { costUsd: costOf(endpoints, counters), spendRecordedAt: new Date() } });
}

/**
 * Brings a run's stored cost up to the counters just written. Several executors
 * of one run add to the counters at once: the cost is written only while the
 * counters are still the ones it was computed from, so the last writer (who read
 * the final counters) leaves the cost of the final counters.
 */
export async function recordRunCost(db: Writer, runId: string, endpoints: readonly RunEndpoint[], counters: StoredTokenCounters): Promise<void> {
  if (endpoints.length === 0) return;
  await db.run.updateMany({
    where: { id: runId, promptTokens: counters.promptTokens, completionTokens: counters.completionTokens, cachedTokens: counters.cachedTokens },
    data: { costUsd: costOf(endpoints, counters) },
  });
}

/** Core's `runCost` of the counters at the endpoints' snapshotted prices; null where it is not defined. */
function costOf(endpoints: readonly RunEndpoint[], counters: StoredTokenCounters): number | null {
  const tokens = { promptTokens: Number(counters.promptTokens), completionTokens: Number(counters.completionTokens), cachedTokens: Number(counters.cachedTokens) };
  return runCost(tokens, endpoints.map(({ endpoint }) => endpoint)).usd;
}
