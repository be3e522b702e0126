import type { CheckpointOutcomeCounts } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { cached, goldOutcomeCountsStore, rowsVersion } from "./cache";
import { commonGoldQuery, NO_PREDICTION, predictionCode, predictionColumn, UNPARSEABLE_PREDICTION, wholeDatasetQuery, type ComparableRun } from "./runs";

/**
 * Runs' outcomes on their common gold, counted in the database: what the
 * metrics tab's comparison needs when every run's bootstrap replicates are
 * stored, without reading the gold solutions.
 */

/** Each run's outcome counts on the common gold and the key of what its bootstrap replicates are drawn from. */
export interface CommonGoldOutcomes {
  /** Gold solutions compared on. */
  gold: number;
  /** Subsets as `compareCheckpoints` orders them. */
  subsets: string[];
  /** Per run, in the order given. */
  runs: Array<{ counts: CheckpointOutcomeCounts; replicatesKey: string }>;
}

/**
 * What `compareCheckpointCounts` needs of the common gold, counted in the
 * database without sending the solutions: per run and subset the four outcome
 * classes, its missing and unparseable predictions, and `replicatesKey`, a
 * SHA-256 over the gold items in file order (solution id, external id,
 * first-error label, subset) each with the run's prediction ("none" for a
 * missing or unparseable one, which score alike): anything that changes what
 * the run's replicates are drawn from (new gold, relabelled items, a replaced
 * solution, a resumed run that predicted more) changes it. (External ids are
 * unique per dataset, so no gold id repeats, as `compareCheckpoints` requires.)
 */
export async function loadCommonGoldOutcomes(db: Db, runs: readonly ComparableRun[]): Promise<CommonGoldOutcomes> {
  // Finished runs: counted once per set of runs and stored under the version of their rows and the dataset's.
  const version = await rowsVersion(db, { runIds: runs.map((r) => r.id), datasetIds: [runs[0]!.datasetId] });
  const runIds = runs.map((r) => r.id).sort().join(",");
  const stored = await cached(goldOutcomeCountsStore(db, runIds), version, async () => storedOutcomes(await countCommonGoldOutcomes(db, runs), runs));
  return readStoredOutcomes(stored, runs);
}

/** `CommonGoldOutcomes` as JSON, each run's entry under its id (the order of the runs asked for may differ). */
export interface StoredOutcomes {
  gold: number;
  subsets: string[];
  runs: Record<string, { classes: number[]; missing: number; unparseable: number; replicatesKey: string }>;
}

function storedOutcomes(outcomes: CommonGoldOutcomes, runs: readonly ComparableRun[]): StoredOutcomes {
  return {
    gold: outcomes.gold,
    subsets: outcomes.subsets,
    runs: Object.fromEntries(runs.map((run, i) => {
      const { counts, replicatesKey } = outcomes.runs[i]!;
      return [run.id, { classes: Array.from(counts.classes), missing: counts.missing, unparseable: counts.unparseable, replicatesKey }];
    })),
  };
}

function readStoredOutcomes(stored: StoredOutcomes, runs: readonly ComparableRun[]): CommonGoldOutcomes {
  return {
    gold: stored.gold,
    subsets: stored.subsets,
    runs: runs.map((run) => {
      const own = stored.runs[run.id]!;
      return { counts: { classes: Int32Array.from(own.classes), missing: own.missing, unparseable: own.unparseable }, replicatesKey: own.replicatesKey };
    }),
  };
}

async function countCommonGoldOutcomes(db: Db, runs: readonly ComparableRun[]): Promise<CommonGoldOutcomes> {
  // A hit is a parsed prediction equal to the label (codes below -1 never are); label -1 is an error-free solution.
  const classes = runs.map((_, i) => {
    const p = predictionColumn(i);
    const hit = Prisma.sql`${p} >= -1 AND ${p} = label`;
    return Prisma.sql`json_build_array(
        count(*) FILTER (WHERE label <> -1 AND ${hit}), count(*) FILTER (WHERE label <> -1 AND NOT (${hit})),
        count(*) FILTER (WHERE label = -1 AND ${hit}), count(*) FILTER (WHERE label = -1 AND NOT (${hit})),
        count(*) FILTER (WHERE ${p} = ${predictionCode(NO_PREDICTION)}), count(*) FILTER (WHERE ${p} = ${predictionCode(UNPARSEABLE_PREDICTION)}))`;
  });
  // One ordered pass serves every key: the aggregates share their ORDER BY, so the rows are sorted once.
  const keys = runs.map((_, i) => {
    const p = predictionColumn(i);
    return Prisma.sql`encode(sha256(convert_to(string_agg(id || E'\\t' || "externalId" || E'\\t' || label::text || E'\\t' || "resolvedSubset" || E'\\t' || CASE WHEN ${p} < -1 THEN 'none' ELSE ${p}::text END, E'\\n' ORDER BY "createdAt", id), 'UTF8')), 'hex') AS ${Prisma.raw(`key${i}`)}`;
  });
  const [row] = await wholeDatasetQuery<Array<Record<string, string> & { gold: number; bySubset: Array<{ subset: string; runs: number[][] }> | null }>>(
    db,
    Prisma.sql`WITH gold AS MATERIALIZED (${commonGoldQuery(runs)})
     SELECT count(*)::int AS gold, ${Prisma.join(keys, ", ")},
            (SELECT json_agg(json_build_object('subset', subset, 'runs', runs)) FROM (
               SELECT "resolvedSubset" AS subset, json_build_array(${Prisma.join(classes, ", ")}) AS runs FROM gold GROUP BY 1) s) AS "bySubset"
       FROM gold`,
  );
  const bySubset = (row!.bySubset ?? []).sort((a, b) => a.subset.localeCompare(b.subset));
  return {
    gold: row!.gold,
    subsets: bySubset.map((s) => s.subset),
    runs: runs.map((_, i) => {
      const classes = new Int32Array(bySubset.length * 4);
      let missing = 0;
      let unparseable = 0;
      bySubset.forEach((s, k) => {
        const own = s.runs[i]!;
        classes.set(own.slice(0, 4), k * 4);
        missing += own[4]!;
        unparseable += own[5]!;
      });
      return { counts: { classes, missing, unparseable }, replicatesKey: row![`key${i}`]! };
    }),
  };
}
