import { majorityVerdict, type HumanRating, type Label, type Verdict } from "@stepwiser/core";
import type { AnnotationScheme, AssignmentStatus, Db } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import { remainingForAnnotator } from "./leases";
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
  trajectory: { id: string; externalId: string; finalAnswer: string | null; problemText: string };
  chunks: AssignmentChunk[];
  /** Blind queue, not yet submitted: the model's labels, Q-values and verdicts were left out. */
  modelHidden: boolean;
  /** My latest labels on this item (to edit after an undo); null before my first submission. */
  mine: MyItemLabels | null;
}

/**
 * One assignment as its annotator sees it. The model's evidence is read only
 * when it may be shown: in a blind queue an unsubmitted assignment never
 * carries it, so it cannot leak through the network tab.
 */
export async function loadAssignmentView(db: Db, assignmentId: string, viewerId: string): Promise<AssignmentView> {
  const assignment = await db.annotationAssignment.findUnique({
    where: { id: assignmentId },
    select: {
      id: true,
      annotatorId: true,
      status: true,
      expiresAt: true,
      submittedAt: true,
      firstErrorIndex: true,
      item: {
        select: {
          id: true,
          position: true,
          segmentationId: true,
          trajectory: { select: { id: true, externalId: true, finalAnswer: true, problem: { select: { text: true } } } },
          segmentation: { select: { chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } } } },
          queue: {
            select: {
              id: true,
              name: true,
              instructions: true,
              scheme: true,
              blind: true,
              annotatorsPerItem: true,
              leaseSeconds: true,
              annotateRunId: true,
              labelRule: true,
              judgeRunId: true,
              _count: { select: { items: true } },
            },
          },
        },
      },
    },
  });
  if (!assignment) throw new TRPCError({ code: "NOT_FOUND", message: `assignment ${assignmentId} does not exist` });
  if (assignment.annotatorId !== viewerId) throw new TRPCError({ code: "FORBIDDEN", message: "this assignment belongs to another annotator" });
  const { item } = assignment;
  const { queue } = item;
  const chunks = item.segmentation.chunks;
  const chunkIds = chunks.map((c) => c.id);
  const modelHidden = queue.blind && assignment.status !== "submitted";

  const [evidence, myRows, remaining] = await Promise.all([
    modelHidden ? null : modelEvidence(db, queue, item.segmentationId, chunkIds),
    db.humanLabel.findMany({
      where: { itemId: item.id, authorId: viewerId, source: "annotation" },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { chunkId: true, rating: true, flagged: true, note: true },
    }),
    remainingForAnnotator(db, queue, viewerId, new Date()),
  ]);
  const myLatest = new Map(myRows.map((row) => [row.chunkId, row]));

  return {
    assignmentId: assignment.id,
    itemId: item.id,
    position: item.position,
    expiresAt: assignment.expiresAt,
    status: assignment.status,
    submittedAt: assignment.submittedAt,
    queue: {
      id: queue.id,
      name: queue.name,
      instructions: queue.instructions,
      scheme: queue.scheme,
      blind: queue.blind,
      annotatorsPerItem: queue.annotatorsPerItem,
      leaseSeconds: queue.leaseSeconds,
      items: queue._count.items,
    },
    remainingForMe: remaining,
    trajectory: { id: item.trajectory.id, externalId: item.trajectory.externalId, finalAnswer: item.trajectory.finalAnswer, problemText: item.trajectory.problem.text },
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

/** The audited runs' labels, Q-values (by prefix length) and judge votes for one item's chunks. */
async function modelEvidence(
  db: Db,
  queue: { annotateRunId: string | null; labelRule: string | null; judgeRunId: string | null },
  segmentationId: string,
  chunkIds: string[],
) {
  const rule = parseStoredLabelRule(queue.labelRule);
  const [labelRows, valueRows, voteRows, judgeRun] = await Promise.all([
    queue.annotateRunId && rule
      ? db.chunkLabel.findMany({ where: { runId: queue.annotateRunId, rule: rule.rule, paramsKey: rule.paramsKey, chunkId: { in: chunkIds } }, select: { chunkId: true, label: true } })
      : [],
    queue.annotateRunId ? db.chunkValue.findMany({ where: { runId: queue.annotateRunId, segmentationId }, select: { prefixLength: true, qValue: true } }) : [],
    queue.judgeRunId
      ? db.judgeSample.groupBy({ by: ["chunkId", "verdict"], where: { runId: queue.judgeRunId, chunkId: { in: chunkIds } }, _count: { _all: true } })
      : [],
    queue.judgeRunId ? db.run.findUnique({ where: { id: queue.judgeRunId }, select: { config: true } }) : null,
  ]);
  const votes = new Map<string, { Positive: number; Negative: number; unparseable: number }>();
  for (const row of voteRows) {
    const tally = votes.get(row.chunkId) ?? { Positive: 0, Negative: 0, unparseable: 0 };
    tally[row.verdict] += row._count._all;
    votes.set(row.chunkId, tally);
  }
  const tiePolicy = judgeTiePolicy(judgeRun?.config);
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
    labels: new Map(labelRows.map((row) => [row.chunkId, row.label as Label])),
    qValues: new Map(valueRows.map((row) => [row.prefixLength, row.qValue])),
    votes,
    verdicts,
  };
}
