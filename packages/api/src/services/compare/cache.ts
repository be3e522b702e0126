import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { VerifierScaling } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import type { StoredDisagreements } from "./disagreements";
import type { StoredOutcomes } from "./gold-outcomes";
import type { ReadingGroupRow } from "./readings";

/**
 * The compare cache: what the compare views compute from finished runs (judge × Monte-Carlo counts, gold outcome
 * counts, disagreement lists, Maj@K curves) is stored under the version of the rows it was computed from
 * (`rowsVersion`) and read back while that version stands. `cached` is the one way in; the stores below are the
 * tables the results live in. (Bootstrap replicates, BootstrapReplicates, are not among them: they are kept under
 * the hash of the gold they were drawn from, not a version, and `compareCheckpointRuns` reads them in one batch.)
 */

/**
 * The shape of what the compare views store: part of every version, so a release
 * that changes a stored result's fields (2: solution ids named `solutionId`)
 * computes each result anew instead of reading one written the older way.
 */
const STORED_RESULT_FORMAT = 2;

/**
 * The version of the stored rows of finished runs (and of the solutions of
 * datasets) that a stored compare result is computed from: each run's
 * finishedAt and each scope's count of RowsChange rows, which triggers append
 * for every statement that changes those rows once a run has finished. Null
 * when a run has not finished (its rows may still change, so nothing is
 * stored for it) or does not exist. The same scopes in any order give the same version.
 */
export async function rowsVersion(db: Db, scopes: { runIds: readonly string[]; datasetIds?: readonly string[] }): Promise<string | null> {
  const runs = await db.$queryRaw<Array<{ id: string; finishedAt: Date | null; changes: number }>>(
    Prisma.sql`SELECT r.id, r."finishedAt", (SELECT count(*)::int FROM "RowsChange" c WHERE c."scopeId" = r.id) AS changes FROM "Run" r WHERE r.id = ANY(${[...scopes.runIds]}::text[])`,
  );
  // In id order, so that the same runs asked for in another order (the compare page's either side) have one version.
  const parts: string[] = [`format ${STORED_RESULT_FORMAT}`];
  for (const id of [...scopes.runIds].sort()) {
    const run = runs.find((r) => r.id === id);
    if (!run?.finishedAt) return null;
    parts.push(`run ${id} finished ${run.finishedAt.toISOString()} changed ${run.changes}`);
  }
  for (const id of [...(scopes.datasetIds ?? [])].sort()) {
    const [row] = await db.$queryRaw<Array<{ changes: number }>>(Prisma.sql`SELECT count(*)::int AS changes FROM "RowsChange" WHERE "scopeId" = ${id}`);
    parts.push(`dataset ${id} changed ${row!.changes}`);
  }
  return parts.join("; ");
}

/** What a store reads and writes through: the database, or the transaction of an exclusive store. */
export type CacheClient = Prisma.TransactionClient;

/**
 * Where one stored compare result lives: the database, how its row is found and written, and for a result that
 * writes rows of its own while it is computed, the lock it is computed under. A store object, not a table name,
 * because it binds the database and the row's key, so `cached` needs nothing else; the stores are made only by
 * the factories of this module, each typed by the result its table holds, so a caller names a row and cannot
 * read one table's JSON as another's, and how each table is read and written is in this one file.
 */
export interface CacheScope<T> {
  readonly db: Db;
  /** The result stored under `version`; null when none is, or only one stored under another version. */
  read(client: CacheClient, version: string): Promise<T | null>;
  /** Stores `value` under `version` (a store may keep back a value its column would not give back as it was). */
  write(client: CacheClient, version: string, value: T): Promise<void>;
  /**
   * Set when computing the result writes rows of its own (the disagreement list's items): the read, compute and
   * write then run in one transaction under an advisory lock on `lock`, so one caller computes while the others
   * wait and read what it stored, and `claim` first replaces the stored result, so no reader mixes two.
   */
  readonly exclusive?: { lock: string; claim(tx: CacheClient): Promise<void> };
}

/**
 * The result stored in `scope` under `version` (see `rowsVersion`) while that version stands, else computed,
 * stored under it and returned; with a null version (a run not finished) it is computed and nothing is read or
 * stored. `compute` gets the client to compute through: the transaction of an exclusive store, else its database.
 */
export async function cached<T>(scope: CacheScope<T>, version: string | null, compute: (client: CacheClient) => Promise<T>): Promise<T> {
  if (version === null) return compute(scope.db);
  const stored = await scope.read(scope.db, version);
  if (stored !== null) return stored;
  if (!scope.exclusive) {
    const value = await compute(scope.db);
    await scope.write(scope.db, version, value);
    return value;
  }
  const { lock, claim } = scope.exclusive;
  return scope.db.$transaction(
    async (tx) => {
      await tx.$executeRaw(Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${lock}, 0))`);
      const current = await scope.read(tx, version);
      if (current !== null) return current;
      await claim(tx);
      const value = await compute(tx);
      await scope.write(tx, version, value);
      return value;
    },
    { timeout: 300_000 },
  );
}

/** A stored result as its JSON column takes it (the stored forms are plain JSON data). */
function json(value: object): Prisma.InputJsonValue {
  return value as unknown as Prisma.InputJsonValue;
}

/** A judge run's chunks counted by votes and Monte-Carlo label (`countReadingGroups`), one row per judge run and labels. */
export function readingGroupCountsStore(db: Db, key: { judgeRunId: string; labelsKey: string }): CacheScope<ReadingGroupRow[]> {
  const where = { judgeRunId_labelsKey: key };
  return {
    db,
    read: async (client, version) => {
      const row = await client.readingGroupCounts.findUnique({ where, select: { version: true, groups: true } });
      return row?.version === version ? (row.groups as unknown as ReadingGroupRow[]) : null;
    },
    write: async (client, version, groups) => {
      await client.readingGroupCounts.upsert({ where, create: { ...key, version, groups: json(groups) }, update: { version, groups: json(groups) } });
    },
  };
}

/** Runs' outcome counts on their common gold (`loadCommonGoldOutcomes`), one row per set of runs (`runIds`: sorted, joined by ","). */
export function goldOutcomeCountsStore(db: Db, runIds: string): CacheScope<StoredOutcomes> {
  return {
    db,
    read: async (client, version) => {
      const row = await client.goldOutcomeCounts.findUnique({ where: { runIds }, select: { version: true, outcomes: true } });
      return row?.version === version ? (row.outcomes as unknown as StoredOutcomes) : null;
    },
    write: async (client, version, outcomes) => {
      await client.goldOutcomeCounts.upsert({ where: { runIds }, create: { runIds, version, outcomes: json(outcomes) }, update: { version, outcomes: json(outcomes) } });
    },
  };
}

/**
 * Two runs' disagreements (`compareDisagreements`), one DisagreementList row per pair (`runIds`: sorted, joined by
 * ","), whose DisagreementItem rows the computation itself inserts: so it is exclusive. Claiming drops the old list
 * with its items and holds the pair's row under the version "listing" until the new list is written; the write
 * then refreshes the items' statistics, so a page walks the pair's key range in order and stops once it is full,
 * rather than fetching the whole list by bitmap and sorting it (the plan the estimates of a table just written give).
 * Compute only with a version: listed without one, the items would be written under none.
 */
export function disagreementListStore(db: Db, runIds: string): CacheScope<StoredDisagreements> {
  return {
    db,
    read: async (client, version) => {
      const row = await client.disagreementList.findUnique({ where: { runIds }, select: { version: true, list: true } });
      return row?.version === version ? (row.list as unknown as StoredDisagreements) : null;
    },
    write: async (client, version, list) => {
      await client.disagreementList.update({ where: { runIds }, data: { version, list: json(list) } });
      await client.$executeRaw(Prisma.sql`ANALYZE "DisagreementItem"`);
    },
    exclusive: {
      lock: `disagreements ${runIds}`,
      claim: async (tx) => {
        await tx.disagreementList.deleteMany({ where: { runIds } });
        await tx.disagreementList.create({ data: { runIds, version: "listing", list: {} } });
      },
    },
  };
}

/**
 * A run's Maj@K curve (`compareScaling`) for one number of draws and seed. Each version has its own row, keyed by
 * its SHA-256 (`goldKey`), so curves of earlier versions stay; a curve is kept back when JSON would not give the
 * same numbers (a NaN comes back null), and a row another caller wrote first is left as it is.
 */
export function scalingCurveStore(db: Db, key: { runId: string; draws: number; seed: number }): CacheScope<VerifierScaling> {
  const row = (version: string) => ({ runId: key.runId, goldKey: createHash("sha256").update(version).digest("hex"), draws: key.draws, seed: String(key.seed) });
  return {
    db,
    read: async (client, version) => {
      const stored = await client.scalingCurve.findUnique({ where: { runId_goldKey_draws_seed: row(version) }, select: { curve: true } });
      return stored ? (stored.curve as unknown as VerifierScaling) : null;
    },
    write: async (client, version, curve) => {
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(curve)), curve)) return;
      await client.scalingCurve.createMany({ data: [{ ...row(version), curve: json(curve) }], skipDuplicates: true });
    },
  };
}
