import { describeStoredLabelRule, InputError, NotFoundError, majorityVerdict, positiveShare, resolveHumanLabel, type HumanRating, type Label, STORED_LABEL_RULE_VALUES, storedLabelRule, type ThreeWayChunk, type Verdict } from "@stepwiser/core";
import { Prisma, type Db, type LabelRule as DbLabelRule } from "@stepwiser/db";
import { tryReadRunConfig } from "@stepwiser/jobs";
import { z } from "zod";
import { cached, readingGroupCountsStore, rowsVersion } from "./cache";
import { loadJudgeSampleRun, wholeDatasetQuery, wholeDatasetQueryWith, type ComparableRun } from "./runs";

/**
 * The three chunk-level readings the agreement and calibration views compare:
 * a judge run's majority verdict (and its share of Positive votes), an
 * annotate run's Monte-Carlo label under one rule, and the final human rating.
 */

export const storedRuleSchema = z.object({ rule: z.enum(STORED_LABEL_RULE_VALUES), paramsKey: z.string() });
export type StoredRule = z.infer<typeof storedRuleSchema>;

/** Rules with stored labels in an annotate run, the run's configured order first. */
export async function availableLabelRules(db: Db, annotateRunId: string): Promise<StoredRule[]> {
  const [stored, run] = await Promise.all([
    // The distinct (rule, paramsKey) of the run, one index probe each (a loose index scan), not a pass over its millions of labels.
    db.$queryRaw<Array<{ rule: StoredRule["rule"]; paramsKey: string }>>(
      Prisma.sql`WITH RECURSIVE rules AS (
         (SELECT rule, "paramsKey" FROM "ChunkLabel" WHERE "runId" = ${annotateRunId} ORDER BY rule, "paramsKey" LIMIT 1)
         UNION ALL
         SELECT next.rule, next."paramsKey" FROM rules CROSS JOIN LATERAL (
           SELECT rule, "paramsKey" FROM "ChunkLabel"
            WHERE "runId" = ${annotateRunId} AND (rule, "paramsKey") > (rules.rule, rules."paramsKey")
            ORDER BY rule, "paramsKey" LIMIT 1) next)
       SELECT rule::text AS rule, "paramsKey" FROM rules`,
    ),
    db.run.findUnique({ where: { id: annotateRunId }, select: { id: true, kind: true, config: true } }),
  ]);
  const config = run?.kind === "annotate" ? tryReadRunConfig({ ...run, kind: run.kind }) : null;
  const configured = (config?.labelRules ?? []).map(storedLabelRule);
  const key = (r: StoredRule) => `${r.rule}|${r.paramsKey}`;
  const storedKeys = new Set(stored.map(key));
  const first = configured.filter((r) => storedKeys.has(key(r)));
  const firstKeys = new Set(first.map(key));
  return [...first, ...stored.filter((r) => !firstKeys.has(key(r))).map((r) => ({ rule: r.rule, paramsKey: r.paramsKey }))];
}

/** A readable name for a stored rule, e.g. "rel-ratio(gamma=0.8)", "abs-q(evidence=own-prefix)". */
export function ruleName(rule: StoredRule): string {
  return describeStoredLabelRule(rule.rule, rule.paramsKey);
}

export async function loadAnnotateRun(db: Db, id: string, datasetId: string) {
  const run = await db.run.findUnique({ where: { id }, select: { id: true, kind: true, datasetId: true } });
  if (!run) throw new NotFoundError(`run ${id} does not exist`);
  if (run.kind !== "annotate") throw new InputError(`run ${id} is a ${run.kind} run, not an annotate run`);
  if (run.datasetId !== datasetId) throw new InputError(`annotate run ${id} is on another dataset than the judge run`);
  return run;
}

export async function loadQueue(db: Db, id: string, datasetId: string) {
  const queue = await db.annotationQueue.findUnique({ where: { id }, select: { id: true, name: true, datasetId: true } });
  if (!queue) throw new NotFoundError(`annotation queue ${id} does not exist`);
  if (queue.datasetId !== datasetId) throw new InputError(`annotation queue ${id} is on another dataset than the judge run`);
  return queue;
}

export interface JudgeReading {
  verdict: Verdict;
  share: number | null;
}

/** Majority verdict (the run's tie policy) and Positive share per chunk, from vote counts: no rationale is read. */
export async function loadJudgeReadings(db: Db, run: ComparableRun): Promise<Map<string, JudgeReading>> {
  const counts = await db.chunkVotes.findMany({ where: { runId: run.id }, select: { chunkId: true, positive: true, negative: true, unparseable: true } });
  return new Map(counts.map((row) => [row.chunkId, judgeReadingOfCounts(row.positive, row.negative, row.unparseable, run.tiePolicy)]));
}

export async function loadMonteCarloLabels(db: Db, annotateRunId: string, rule: StoredRule): Promise<Map<string, Label>> {
  const rows = await db.chunkLabel.findMany({ where: { runId: annotateRunId, rule: rule.rule as DbLabelRule, paramsKey: rule.paramsKey }, select: { chunkId: true, label: true } });
  return new Map(rows.map((r) => [r.chunkId, r.label]));
}

export interface HumanReadings {
  /** Final rating per chunk that has one (adjudicated or agreed; a null rating = not rated is left out). */
  ratings: Map<string, HumanRating>;
  /** Chunks whose annotators disagree and no adjudication decided yet. */
  disputed: number;
}

/** Final human ratings of the dataset's chunks, optionally from one annotation queue only. */
export async function loadHumanReadings(db: Db, datasetId: string, queueId?: string): Promise<HumanReadings> {
  const rows = await db.humanLabel.findMany({
    where: { chunk: { segmentation: { solution: { datasetId } } }, ...(queueId ? { queueId } : {}) },
    select: { chunkId: true, authorId: true, rating: true, source: true, createdAt: true },
  });
  const byChunk = new Map<string, typeof rows>();
  for (const row of rows) byChunk.set(row.chunkId, [...(byChunk.get(row.chunkId) ?? []), row]);
  const ratings = new Map<string, HumanRating>();
  let disputed = 0;
  for (const [chunkId, labels] of byChunk) {
    const final = resolveHumanLabel(labels);
    if (final.status === "disputed") disputed += 1;
    else if ((final.status === "agreed" || final.status === "adjudicated") && final.rating !== null) ratings.set(chunkId, final.rating);
  }
  return { ratings, disputed };
}

const CHUNK_PAGE = 10_000;

/** Where each chunk sits: its solution and index, read in pages of ids. */
export async function loadChunkPlaces(db: Db, chunkIds: readonly string[]) {
  const places = new Map<string, { solutionId: string; externalId: string; index: number }>();
  for (let start = 0; start < chunkIds.length; start += CHUNK_PAGE) {
    const rows = await db.chunk.findMany({
      where: { id: { in: chunkIds.slice(start, start + CHUNK_PAGE) } },
      select: { id: true, index: true, segmentation: { select: { solutionId: true, solution: { select: { externalId: true } } } } },
    });
    for (const row of rows) places.set(row.id, { solutionId: row.segmentation.solutionId, externalId: row.segmentation.solution.externalId, index: row.index });
  }
  return places;
}

export interface ChunkReadingsRequest {
  judgeRunId: string;
  annotateRunId?: string;
  rule?: StoredRule;
  queueId?: string;
}

/** The judge run, annotate run, rule and queue a chunk-level view reads, checked against each other. */
export async function resolveReadingsScope(db: Db, request: ChunkReadingsRequest) {
  const judgeRun = await loadJudgeSampleRun(db, request.judgeRunId);
  const annotateRun = request.annotateRunId ? await loadAnnotateRun(db, request.annotateRunId, judgeRun.datasetId) : null;
  const queue = request.queueId ? await loadQueue(db, request.queueId, judgeRun.datasetId) : null;
  const availableRules = annotateRun ? await availableLabelRules(db, annotateRun.id) : [];
  const rule = request.rule ?? availableRules[0] ?? null;
  if (annotateRun && request.rule && !availableRules.some((r) => r.rule === request.rule!.rule && r.paramsKey === request.rule!.paramsKey)) {
    throw new InputError(`annotate run ${annotateRun.id} stored no labels under ${ruleName(request.rule)}`);
  }
  return { judgeRun, annotateRun, queue, rule, availableRules };
}

/** The judge's reading of a chunk from its vote counts: `majorityVerdict` and `positiveShare` without listing the votes. */
export function judgeReadingOfCounts(positive: number, negative: number, unparseable: number, tiePolicy: ComparableRun["tiePolicy"]): JudgeReading {
  const votes: Verdict[] = [...Array<Verdict>(positive).fill("Positive"), ...Array<Verdict>(negative).fill("Negative"), ...Array<Verdict>(unparseable).fill("unparseable")];
  return { verdict: majorityVerdict(votes, tiePolicy).verdict, share: positiveShare(votes) };
}

export interface ReadingGroup {
  /** The judge's reading shared by the group's chunks; null: not judged by the run. */
  judge: JudgeReading | null;
  /** The Monte-Carlo label; null: none under the rule (or no annotate run asked). */
  mc: Label | null;
  /** Chunks in the group. */
  chunks: number;
}

/** A row of `countReadingGroups`' count: vote counts (null: not judged), Monte-Carlo label (null: none), chunks. */
export interface ReadingGroupRow {
  pos: number | null;
  neg: number | null;
  unp: number | null;
  label: Label | null;
  chunks: number;
}

/**
 * Every chunk the judge run judged or the annotate run labelled under the
 * rule, counted by (Positive, Negative, unparseable votes, Monte-Carlo label)
 * in the database from the runs' ChunkVotes and the rule's labels (both read in
 * chunk order from their covering indexes): a few dozen rows whatever the
 * dataset's size, in a fixed order. When the runs have finished the count is
 * stored in the compare cache (`cached`, ReadingGroupCounts) under the version of their rows (`rowsVersion`)
 * and read back while that version stands, so only the first view after a
 * change joins every vote row with every label.
 */
export async function countReadingGroups(db: Db, judgeRun: ComparableRun, labels: { annotateRunId: string; rule: StoredRule } | null): Promise<ReadingGroup[]> {
  const labelsKey = labels ? `${labels.annotateRunId}|${labels.rule.rule}|${labels.rule.paramsKey}` : "";
  const version = await rowsVersion(db, { runIds: labels ? [judgeRun.id, labels.annotateRunId] : [judgeRun.id] });
  const rows = await cached(readingGroupCountsStore(db, { judgeRunId: judgeRun.id, labelsKey }), version, () => countReadingGroupRows(db, judgeRun, labels));
  return rows.map((row) => ({
    judge: row.pos === null ? null : judgeReadingOfCounts(row.pos, row.neg!, row.unp!, judgeRun.tiePolicy),
    mc: row.label,
    chunks: row.chunks,
  }));
}

async function countReadingGroupRows(db: Db, judgeRun: ComparableRun, labels: { annotateRunId: string; rule: StoredRule } | null): Promise<ReadingGroupRow[]> {
  // ChunkVotes holds each chunk's tally (kept by triggers on JudgeSample): one narrow row per chunk, not K wide samples.
  const votes = Prisma.sql`SELECT "chunkId", positive AS pos, negative AS neg, unparseable AS unp FROM "ChunkVotes" WHERE "runId" = ${judgeRun.id}`;
  // Ordered, so that a stored count and a fresh one are summed in the same order downstream.
  return labels
    ? await wholeDatasetQueryWith<ReadingGroupRow[]>(
        db,
        { parallel: false },
        Prisma.sql`WITH j AS (${votes}),
              m AS (SELECT "chunkId", label::text AS label FROM "ChunkLabel" WHERE "runId" = ${labels.annotateRunId} AND rule = ${labels.rule.rule}::"LabelRule" AND "paramsKey" = ${labels.rule.paramsKey})
         SELECT j.pos, j.neg, j.unp, m.label, count(*)::int AS chunks
           FROM j FULL JOIN m ON m."chunkId" = j."chunkId"
          GROUP BY 1, 2, 3, 4
          ORDER BY 1, 2, 3, 4`,
      )
    : await wholeDatasetQuery<ReadingGroupRow[]>(db, Prisma.sql`SELECT pos, neg, unp, NULL AS label, count(*)::int AS chunks FROM (${votes}) j GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
}

/**
 * The given chunks (the human-rated ones: as many as people rated) with all
 * three readings and their place, read in one statement per page of ids,
 * solution by solution and in order (externalId with numeric collation, then
 * solution id, then index).
 */
export async function loadChunksWithReadings(
  db: Db,
  chunkIds: readonly string[],
  judgeRun: ComparableRun,
  labels: { annotateRunId: string; rule: StoredRule } | null,
  human: ReadonlyMap<string, HumanRating>,
): Promise<ThreeWayChunk[]> {
  const chunks: ThreeWayChunk[] = [];
  const label = labels ? Prisma.sql`m.label::text AS label` : Prisma.sql`NULL AS label`;
  const labelJoin = labels
    ? Prisma.sql`LEFT JOIN "ChunkLabel" m ON m."chunkId" = c.id AND m."runId" = ${labels.annotateRunId} AND m.rule = ${labels.rule.rule}::"LabelRule" AND m."paramsKey" = ${labels.rule.paramsKey}`
    : Prisma.empty;
  for (let start = 0; start < chunkIds.length; start += CHUNK_PAGE) {
    const rows = await db.$queryRaw<Array<{ chunkId: string; index: number; solutionId: string; externalId: string; pos: number; neg: number; unp: number; label: Label | null }>>(
      Prisma.sql`SELECT c.id AS "chunkId", c.index, s."solutionId", t."externalId", coalesce(v.positive, 0) AS pos, coalesce(v.negative, 0) AS neg, coalesce(v.unparseable, 0) AS unp, ${label}
         FROM unnest(${chunkIds.slice(start, start + CHUNK_PAGE)}::text[]) AS wanted(id)
         JOIN "Chunk" c ON c.id = wanted.id
         JOIN "Segmentation" s ON s.id = c."segmentationId"
         JOIN "Solution" t ON t.id = s."solutionId"
         LEFT JOIN "ChunkVotes" v ON v."runId" = ${judgeRun.id} AND v."chunkId" = c.id
         ${labelJoin}`,
    );
    for (const row of rows) {
      const judged = row.pos + row.neg + row.unp > 0;
      const reading = judged ? judgeReadingOfCounts(row.pos, row.neg, row.unp, judgeRun.tiePolicy) : null;
      chunks.push({
        chunkId: row.chunkId,
        solutionId: row.solutionId,
        externalId: row.externalId,
        index: row.index,
        judge: reading?.verdict ?? null,
        judgeShare: reading?.share ?? null,
        mc: row.label,
        human: human.get(row.chunkId) ?? null,
      });
    }
  }
  // Solution by solution, chunks in order: a stable list to page through.
  return chunks.sort((a, b) => a.externalId.localeCompare(b.externalId, undefined, { numeric: true }) || a.solutionId.localeCompare(b.solutionId) || a.index - b.index);
}
