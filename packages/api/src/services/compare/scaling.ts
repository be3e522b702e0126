import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { verifierScalingReplay, type ScalingSolution, type StoredJudgeSample, type Verdict, type VerifierScaling } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { FINISHED_STATUSES, loadCommonGold, loadJudgeSampleRun, rowsVersion, type ComparableRun, type GoldSolution } from "./runs";

/** Solutions read and replayed at a time: the samples of one page are all that is held. */
const SOLUTION_PAGE = 2000;

/** The fewest samples the run stored on any chunk of these solutions' segmentation (0 when it judged none). */
async function fewestStoredSamples(db: Db, run: ComparableRun, trajectoryIds: readonly string[]): Promise<number> {
  const [row] = await db.$queryRawUnsafe<Array<{ fewest: number | null }>>(
    `SELECT min(cardinality(v."sampleIndexes"))::int AS fewest
       FROM "ChunkVotes" v
       JOIN "Chunk" c ON c.id = v."chunkId"
       JOIN "Segmentation" s ON s.id = c."segmentationId"
      WHERE v."runId" = $1 AND s.method = $2 AND s."trajectoryId" = ANY($3::text[])`,
    run.id,
    run.segmentationMethod,
    trajectoryIds,
  );
  return row?.fewest ?? 0;
}

/**
 * One page of gold solutions with every chunk of the run's segmentation in order and the samples stored on it (in
 * sampleIndex order, from ChunkVotes). The page's ids drive the join, so each solution's segmentation is found
 * through its (trajectoryId, method) key rather than by filtering every segmentation of the dataset per page.
 */
async function loadPage(db: Db, run: ComparableRun, page: readonly GoldSolution[]): Promise<ScalingSolution[]> {
  const rows = await db.$queryRawUnsafe<Array<{ trajectoryId: string; verdicts: Verdict[]; promptTokens: number[]; completionTokens: number[] }>>(
    `SELECT s."trajectoryId",
            coalesce(v.verdicts::text[], '{}') AS verdicts,
            coalesce(v."promptTokens", '{}') AS "promptTokens",
            coalesce(v."completionTokens", '{}') AS "completionTokens"
       FROM unnest($3::text[]) AS page("trajectoryId")
       JOIN "Segmentation" s ON s."trajectoryId" = page."trajectoryId" AND s.method = $2
       JOIN "Chunk" c ON c."segmentationId" = s.id
       LEFT JOIN "ChunkVotes" v ON v."runId" = $1 AND v."chunkId" = c.id
      ORDER BY s."trajectoryId", c.index`,
    run.id,
    run.segmentationMethod,
    page.map((g) => g.trajectoryId),
  );
  const chunksOf = new Map<string, Array<{ samples: StoredJudgeSample[] }>>();
  for (const row of rows) {
    const list = chunksOf.get(row.trajectoryId) ?? [];
    chunksOf.set(row.trajectoryId, list);
    list.push({ samples: row.verdicts.map((verdict, i) => ({ verdict, promptTokens: row.promptTokens[i]!, completionTokens: row.completionTokens[i]! })) });
  }
  return page.map((g) => ({ id: g.id, label: g.label, subset: g.subset, chunks: chunksOf.get(g.trajectoryId) ?? [] }));
}

async function runScaling(db: Db, run: ComparableRun, draws: number, seed: number) {
  // A finished run's curve is stored under the version of its rows and its dataset's solutions (`rowsVersion`),
  // and read back while that version stands, without reading the gold solutions.
  const version = FINISHED_STATUSES.has(run.status) ? await rowsVersion(db, { runIds: [run.id], datasetIds: [run.datasetId] }) : null;
  const key = version ? createHash("sha256").update(version).digest("hex") : null;
  if (key) {
    const stored = await db.scalingCurve.findUnique({ where: { runId_goldKey_draws_seed: { runId: run.id, goldKey: key, draws, seed: String(seed) } } });
    if (stored) return { run, ...(stored.curve as unknown as VerifierScaling) };
  }
  const { gold } = await loadCommonGold(db, [run]);
  const curve = await replayScaling(db, run, gold, draws, seed);
  // Stored only when JSON gives back the same numbers (a NaN would come back null).
  if (key && isDeepStrictEqual(JSON.parse(JSON.stringify(curve)), curve)) {
    await db.scalingCurve.createMany({ data: [{ runId: run.id, goldKey: key, draws, seed: String(seed), curve: curve as unknown as Prisma.InputJsonValue }], skipDuplicates: true });
  }
  return { run, ...curve };
}

async function replayScaling(db: Db, run: ComparableRun, gold: readonly GoldSolution[], draws: number, seed: number): Promise<VerifierScaling> {
  const maxK = await fewestStoredSamples(db, run, gold.map((g) => g.trajectoryId));
  // Read votes as the run did: a benchmark's unparseable vote makes the prediction unparseable; a judge run's stat skips it.
  const replay = verifierScalingReplay({ maxK, draws, seed, tiePolicy: run.tiePolicy, stopAtFirstNegative: run.stopAtFirstNegative, unparseableChunk: run.kind === "benchmark" ? "invalid" : "Positive" });
  for (let start = 0; start < gold.length; start += SOLUTION_PAGE) {
    const page = gold.slice(start, start + SOLUTION_PAGE);
    // Without any K to replay, only the solution count matters: no samples are read.
    replay.add(maxK > 0 ? await loadPage(db, run, page) : page.map((g) => ({ id: g.id, label: g.label, subset: g.subset, chunks: [] })));
  }
  return replay.finish();
}

/**
 * Maj@K curves from the samples the runs stored (no new model requests): for
 * K = 1, 2, 4, … up to the fewest samples stored on a chunk, the ProcessBench
 * F1 and the judge tokens per solution, each the mean over `draws` random
 * K-subsets. See `verifierScaling` for how unjudged chunks and prompt tokens
 * are read. The solutions are replayed a page at a time (`verifierScalingReplay`),
 * so memory holds one page's samples, not the run's. A finished run's curve is
 * stored the first time (ScalingCurve) and read back while its rows and its
 * dataset's solutions stay as they were.
 */
export async function compareScaling({ db, input }: ServiceArgs<{ runIds: string[]; draws: number; seed: number }>) {
  const runs = [];
  for (const id of new Set(input.runIds)) runs.push(await loadJudgeSampleRun(db, id));
  const curves = [];
  for (const run of runs) curves.push(await runScaling(db, run, input.draws, input.seed));
  return { draws: input.draws, seed: input.seed, runs: curves };
}
