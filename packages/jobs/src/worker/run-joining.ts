import type { Db } from "@stepwiser/db";
import type { Logger } from "../log/logger";
import { repeatEvery, type Repeating } from "./repeat-every";

export interface JoinableRunsQuery {
  /** Runs this worker already executes. */
  excludeRunIds: readonly string[];
  /** Executors one run may have at once (0: no cap). */
  maxExecutorsPerRun: number;
}

/**
 * Runs another executor could help right now: running and planned, not being
 * cancelled, with units nobody holds, and (under a cap) fewer executors than
 * the cap. This is how a run spreads over the workers: those live when it
 * starts, those added later, and those done with their own runs all find the
 * work still waiting. Executors are counted by their live claims.
 */
export async function joinableRuns(db: Db, query: JoinableRunsQuery): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT r.id
      FROM "Run" r
     WHERE r.status = 'running' AND r."plannedAt" IS NOT NULL AND r."cancelRequestedAt" IS NULL
       AND NOT (r.id = ANY(${[...query.excludeRunIds]}::text[]))
       AND EXISTS (
             SELECT 1 FROM "RunUnit" u
              WHERE u."runId" = r.id AND u.status = 'pending'
                AND (u."leaseExpiresAt" IS NULL OR u."leaseExpiresAt" < now()))
       AND (${query.maxExecutorsPerRun}::int = 0 OR (
             SELECT count(DISTINCT u."claimedBy") FROM "RunUnit" u
              WHERE u."runId" = r.id AND u.status = 'pending' AND u."leaseExpiresAt" >= now() AND u."claimedBy" IS NOT NULL
           ) < ${query.maxExecutorsPerRun}::int)
     ORDER BY r."createdAt"`;
  return rows.map((row) => row.id);
}

/**
 * Looks for joinable runs every `intervalSeconds` and hands each to `join`;
 * nothing when the interval is 0 (the worker executes only its own jobs' runs).
 */
export function startRunJoining(
  db: Db,
  options: {
    intervalSeconds: number;
    maxExecutorsPerRun: number;
    executingRunIds: () => readonly string[];
    join: (runId: string) => void;
    logger: Logger;
  },
): Repeating | undefined {
  if (options.intervalSeconds <= 0) return undefined;
  const look = async () => {
    const runIds = await joinableRuns(db, { excludeRunIds: options.executingRunIds(), maxExecutorsPerRun: options.maxExecutorsPerRun });
    for (const runId of runIds) options.join(runId);
  };
  return repeatEvery(options.intervalSeconds * 1000, look, { logger: options.logger, failure: "could not look for runs to join" });
}
