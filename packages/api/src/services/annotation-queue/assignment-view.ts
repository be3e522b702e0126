import { majorityVerdict, type HumanRating, type Label, type Verdict } from "@stepwiser/core";
import { Prisma, type AnnotationScheme, type AssignmentStatus, type Db } from "@stepwiser/db";
import type { StoredRun } from "@stepwiser/jobs";
import { queueSizeAndRemaining } from "./leases";
import { assignmentNotFound, notYours } from "./membership";
import { judgeTiePolicy, parseStoredLabelRule } from "./queue-runs";

export interface AssignmentChunk {
  id: string;
  index: number;
  text: string;
  /** The audited annotate run's label under the queue's rule; null when hidden or not labelled. */
  mcLabel: Label | null;
  /** Q-value of the prefix ending at this chunk under the annotate run. */
  qValue: number | null;
  judgeVotes: { Positive: number; Negative: number; unparseable: number } | null;
  /** Majority of the judge's samples, with the judge run's tie policy. */
  judgeVerdict: Verdict | null;
}

export interface MyItemLabels {
  firstErrorIndex: number | null;
  labels: Array<{ chunkId: string; rating: HumanRating | null; flagged: boolean; note: string | null }>;
}

/** What an annotator sees of one leased (or submitted) item. Never holds anyone else's labels. */
export interface AssignmentView {
  assignmentId: string;
  itemId: string;
  position: number;
  expiresAt: Date;
  status: AssignmentStatus;
  submittedAt: Date | null;
  queue: { id: string; name: string; instructions: string; scheme: AnnotationScheme; blind: boolean; annotatorsPerItem: number; leaseSeconds: number; items: number };
  /** Items this annotator may still be given, the one held here included while it is leased. */
  remainingForMe: number;
  solution: { id: string; externalId: string; finalAnswer: string | null; problemText: string };
  chunks: AssignmentChunk[];
  /** Blind queue, not yet submitted: the model's labels, Q-values and verdicts were left out. */
  modelHidden: boolean;
  /** My latest labels on this item (to edit after an undo); null before my first submission. */
  mine: MyItemLabels | null;
}

/** The assignment with its item, solution, problem, queue and chunks, as one query returns them. */
interface AssignmentRow {
  id: string;
  annotatorId: string;
  status: AssignmentStatus;
  expiresAt: Date;
  submittedAt: Date | null;
  firstErrorIndex: number | null;
  itemId: string;
  position: number;
  segmentationId: string;
  solutionId: string;
  externalId: string;
  finalAnswer: string | null;
  problemText: string;
  queueId: string;
  queueName: string;
  instructions: string;
  scheme: AnnotationScheme;
  blind: boolean;
  annotatorsPerItem: number;
  leaseSeconds: number;
  annotateRunId: string | null;
  labelRule: string | null;
  judgeRunId: string | null;
  /** The judge run's kind and configuration snapshot (its tie policy). */
  judgeKind: "judge" | "benchmark" | null;
  judgeConfig: unknown;
  chunks: Array<{ id: string; index: number; text: string }> | null;
}

/**
 * One assignment as its annotator sees it. The model's evidence is read only
 * when it may be shown: in a blind queue an unsubmitted assignment never
 * carries it, so it cannot leak through the network tab.
 */
export async function loadAssignmentView(db: Db, assignmentId: string, viewerId: string): Promise<AssignmentView> {
  // One round trip for the assignment, its item, solution, problem, queue and chunks:
  // annotators wait on this after every claim and every submit.
  const [assignment] = await db.$queryRaw<AssignmentRow[]>(Prisma.sql`
    SELECT a.id, a."annotatorId", a.status::text AS status, a."expiresAt", a."submittedAt", a."firstErrorIndex",
      i.id AS "itemId", i.position, i."segmentationId",
      t.id AS "solutionId", t."externalId", t."finalAnswer", p.text AS "problemText",
      q.id AS "queueId", q.name AS "queueName", q.instructions, q.scheme::text AS scheme, q.blind, q."annotatorsPerItem", q."leaseSeconds",
      q."annotateRunId", q."labelRule", q."judgeRunId", jr.kind::text AS "judgeKind", jr.config AS "judgeConfig",
      (SELECT json_agg(json_build_object('id', c.id, 'index', c.index, 'text', c.text) ORDER BY c.index)
         FROM "Chunk" c WHERE c."segmentationId" = i."segmentationId") AS chunks
    FROM "AnnotationAssignment" a
    JOIN "AnnotationItem" i ON i.id = a."itemId"
    JOIN "Solution" t ON t.id = i."solutionId"
    JOIN "Problem" p ON p.id = t."problemId"
    JOIN "AnnotationQueue" q ON q.id = i."queueId"
    LEFT JOIN "Run" jr ON jr.id = q."judgeRunId"
    WHERE a.id = ${assignmentId}`);
  if (!assignment) throw assignmentNotFound(assignmentId);
  if (assignment.annotatorId !== viewerId) throw notYours();
  const queue = {
    id: assignment.queueId,
    annotatorsPerItem: assignment.annotatorsPerItem,
    annotateRunId: assignment.annotateRunId,
    labelRule: assignment.labelRule,
    judgeRunId: assignment.judgeRunId,
    judgeRun: assignment.judgeRunId && assignment.judgeKind ? { id: assignment.judgeRunId, kind: assignment.judgeKind, config: assignment.judgeConfig } : null,
  };
  const chunks = assignment.chunks ?? [];
  const chunkIds = chunks.map((c) => c.id);
  const modelHidden = assignment.blind && assignment.status !== "submitted";

  const [evidence, myRows, counts] = await Promise.all([
    modelHidden ? null : modelEvidence(db, queue, assignment.segmentationId, chunkIds),
    db.humanLabel.findMany({
      // queueId first: the (queueId, itemId, createdAt) index finds the item's labels directly.
      where: { queueId: queue.id, itemId: assignment.itemId, authorId: viewerId, source: "annotation" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { chunkId: true, rating: true, flagged: true, note: true },
    }),
    queueSizeAndRemaining(db, queue, viewerId, new Date()),
  ]);
  const myLatest = new Map(myRows.map((row) => [row.chunkId, row]));

  return {
    assignmentId: assignment.id,
    itemId: assignment.itemId,
    position: assignment.position,
    expiresAt: assignment.expiresAt,
    status: assignment.status,
    submittedAt: assignment.submittedAt,
    queue: {
      id: assignment.queueId,
      name: assignment.queueName,
      instructions: assignment.instructions,
      scheme: assignment.scheme,
      blind: assignment.blind,
      annotatorsPerItem: assignment.annotatorsPerItem,
      leaseSeconds: assignment.leaseSeconds,
      items: counts.items,
    },
    remainingForMe: counts.remaining,
    solution: { id: assignment.solutionId, externalId: assignment.externalId, finalAnswer: assignment.finalAnswer, problemText: assignment.problemText },
    chunks: chunks.map((chunk) => ({
      ...chunk,
      mcLabel: evidence?.labels.get(chunk.id) ?? null,
      qValue: evidence?.qValues.get(chunk.index + 1) ?? null,
      judgeVotes: evidence?.votes.get(chunk.id) ?? null,
      judgeVerdict: evidence?.verdicts.get(chunk.id) ?? null,
    })),
    modelHidden,
    mine: myLatest.size
      ? {
          firstErrorIndex: assignment.firstErrorIndex,
          labels: chunks
            .filter((chunk) => myLatest.has(chunk.id))
            .map((chunk) => {
              const row = myLatest.get(chunk.id)!;
              return { chunkId: chunk.id, rating: row.rating as HumanRating | null, flagged: row.flagged, note: row.note };
            }),
        }
      : null,
  };
}

/**
 * The audited runs' labels, Q-values (by prefix length) and judge votes for one item's chunks,
 * in one round trip (each part through its run's index).
 */
async function modelEvidence(
  db: Db,
  queue: { annotateRunId: string | null; labelRule: string | null; judgeRunId: string | null; judgeRun: StoredRun<"judge" | "benchmark"> | null },
  segmentationId: string,
  chunkIds: string[],
) {
  const rule = parseStoredLabelRule(queue.labelRule);
  const none = Prisma.sql`NULL::json`;
  const ids = chunkIds.length ? Prisma.join(chunkIds) : Prisma.sql`NULL`;
  const [row] = await db.$queryRaw<
    Array<{
      labels: Array<{ chunkId: string; label: Label }> | null;
      qValues: Array<{ prefixLength: number; qValue: number }> | null;
      votes: Array<{ chunkId: string; verdict: Verdict; count: number }> | null;
    }>
  >(Prisma.sql`
    SELECT
      ${
        queue.annotateRunId && rule
          ? Prisma.sql`(SELECT json_agg(json_build_object('chunkId', l."chunkId", 'label', l.label))
              FROM "ChunkLabel" l
              WHERE l."runId" = ${queue.annotateRunId} AND l.rule = ${rule.rule}::"LabelRule" AND l."paramsKey" = ${rule.paramsKey} AND l."chunkId" IN (${ids}))`
          : none
      } AS labels,
      ${
        queue.annotateRunId
          ? Prisma.sql`(SELECT json_agg(json_build_object('prefixLength', v."prefixLength", 'qValue', v."qValue"))
              FROM "ChunkValue" v WHERE v."runId" = ${queue.annotateRunId} AND v."segmentationId" = ${segmentationId})`
          : none
      } AS "qValues",
      ${
        queue.judgeRunId
          ? Prisma.sql`(SELECT json_agg(json_build_object('chunkId', js."chunkId", 'verdict', js.verdict, 'count', js.count))
              FROM (SELECT s."chunkId", s.verdict::text AS verdict, count(*)::int AS count
                    FROM "JudgeSample" s WHERE s."runId" = ${queue.judgeRunId} AND s."chunkId" IN (${ids})
                    GROUP BY s."chunkId", s.verdict) js)`
          : none
      } AS votes`);
  const votes = new Map<string, { Positive: number; Negative: number; unparseable: number }>();
  for (const vote of row?.votes ?? []) {
    const tally = votes.get(vote.chunkId) ?? { Positive: 0, Negative: 0, unparseable: 0 };
    tally[vote.verdict] += vote.count;
    votes.set(vote.chunkId, tally);
  }
  const tiePolicy = judgeTiePolicy(queue.judgeRun);
  const verdicts = new Map<string, Verdict>();
  for (const [chunkId, tally] of votes) {
    const samples: Verdict[] = [
      ...Array<Verdict>(tally.Positive).fill("Positive"),
      ...Array<Verdict>(tally.Negative).fill("Negative"),
      ...Array<Verdict>(tally.unparseable).fill("unparseable"),
    ];
    verdicts.set(chunkId, majorityVerdict(samples, tiePolicy).verdict);
  }
  return {
    labels: new Map((row?.labels ?? []).map((label) => [label.chunkId, label.label])),
    qValues: new Map((row?.qValues ?? []).map((value) => [value.prefixLength, value.qValue])),
    votes,
    verdicts,
  };
}
