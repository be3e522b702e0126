import { InputError, type AnnotationSchemeName } from "@stepwiser/core";
import { recordAudit, type Db } from "@stepwiser/db";
import type { RunKind, StoredRun } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { requireBlindOffReason } from "./blind";
import { annotatorsToAdd } from "./membership";
import { defaultLabelRule, judgeTiePolicy, runSegmentationMethod, storedLabelRule, type QueueLabelRule } from "./queue-runs";
import { selectSolutions, type QueueSelection } from "./select-solutions";

export const DEFAULT_SEGMENTATION_METHOD = "self-segmented";

export interface NewQueue {
  name: string;
  instructions: string;
  scheme: AnnotationSchemeName;
  annotatorsPerItem: number;
  leaseSeconds: number;
  /** Annotators see no model signal until they submit; the router's default is true. */
  blind: boolean;
  /** Required when `blind` is false: why annotators may see the model's labels before rating (audited). */
  blindOffReason?: string;
  datasetId: string;
  /** Default: the segmentation the given runs used, else "self-segmented". */
  segmentationMethod?: string;
  /** The annotate run whose Monte-Carlo labels and Q-values annotators see (after submitting, in a blind queue). */
  annotateRunId?: string;
  /** Default: the annotate run's first label rule. */
  labelRule?: QueueLabelRule;
  judgeRunId?: string;
  selection: QueueSelection;
  /** Accounts that may work the queue besides researchers and admins (annotators see only their member queues). */
  annotatorIds: string[];
}

/** A refusal naming the input field it concerns, worded like every other located input error. */
const bad = (message: string, field?: string) => new InputError(message, { field });

/** A run given to the queue: it must exist, belong to the dataset and be of a kind that has what the queue reads. */
async function runOf<K extends RunKind>(db: Db, runId: string, datasetId: string, field: string, kinds: readonly K[]): Promise<StoredRun<K>> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true, datasetId: true, config: true } });
  if (!run) throw bad(`run ${runId} does not exist`, field);
  if (run.datasetId !== datasetId) throw bad(`run ${runId} belongs to another dataset`, field);
  const isWanted = (kind: string): kind is K => (kinds as readonly string[]).includes(kind);
  if (!isWanted(run.kind)) throw bad(`run ${runId} is a ${run.kind} run; expected ${kinds.join(" or ")}`, field);
  return { id: run.id, kind: run.kind, config: run.config };
}

/**
 * A queue of solutions for human audit. The items are chosen once, here, and
 * written with the queue, its settings and the audit row in one transaction:
 * a queue never exists half-filled.
 */
export async function createAnnotationQueue({ db, user, input }: ServiceArgs<NewQueue>): Promise<{ queueId: string; items: number; members: number }> {
  const { selection } = input;
  const blindOffReason = input.blind ? undefined : requireBlindOffReason(input.blindOffReason);
  const dataset = await db.dataset.findUnique({ where: { id: input.datasetId }, select: { id: true } });
  if (!dataset) throw bad(`dataset ${input.datasetId} does not exist`, "datasetId");
  if (selection.kind === "filter" && selection.filter.datasetId !== undefined && selection.filter.datasetId !== input.datasetId) {
    throw bad(`${selection.filter.datasetId} must be the queue's dataset (${input.datasetId})`, "selection.filter.datasetId");
  }
  if (selection.kind === "disagreements" && (!input.annotateRunId || !input.judgeRunId)) {
    throw bad("a disagreements selection needs annotateRunId and judgeRunId: it compares the judge's verdicts with the Monte-Carlo labels");
  }
  // A least-confident selection audits the run and rule it was drawn from: the queue's must be those, or left out.
  const drawnFrom = selection.kind === "least-confident" ? selection : null;
  if (drawnFrom && input.annotateRunId !== undefined && input.annotateRunId !== drawnFrom.annotateRunId) {
    throw bad(`annotateRunId must be the least-confident selection's annotate run (${drawnFrom.annotateRunId}), or left out`, "annotateRunId");
  }
  if (drawnFrom && input.labelRule && (input.labelRule.rule !== drawnFrom.rule.rule || input.labelRule.paramsKey !== drawnFrom.rule.paramsKey)) {
    throw bad(`labelRule must be the least-confident selection's rule (${drawnFrom.rule.rule} ${drawnFrom.rule.paramsKey}), or left out`, "labelRule");
  }
  const annotateRunId = drawnFrom?.annotateRunId ?? input.annotateRunId;
  if (input.labelRule && !annotateRunId) throw bad("labelRule needs annotateRunId: it names one of that run's label rules");

  const annotateRun = annotateRunId ? await runOf(db, annotateRunId, input.datasetId, drawnFrom ? "selection.annotateRunId" : "annotateRunId", ["annotate"]) : null;
  // A benchmark run in chunk-judge mode stores judge samples like a judge run.
  const judgeRun = input.judgeRunId ? await runOf(db, input.judgeRunId, input.datasetId, "judgeRunId", ["judge", "benchmark"]) : null;
  const selectionRun =
    selection.kind === "random" || selection.kind === "stratified"
      ? await runOf(db, selection.runId, input.datasetId, "selection.runId", ["annotate", "judge", "benchmark"])
      : null;

  const annotators = await annotatorsToAdd(db, input.annotatorIds, "annotatorIds");
  const segmentationMethod = input.segmentationMethod ?? impliedSegmentationMethod([annotateRun, judgeRun, selectionRun]);

  let labelRule: QueueLabelRule | null = null;
  if (annotateRun) {
    labelRule = drawnFrom?.rule ?? input.labelRule ?? (await defaultLabelRule(db, annotateRun));
    if (!labelRule) throw bad(`annotate run ${annotateRun.id} stored no labels yet`);
    const stored = await db.chunkLabel.findFirst({ where: { runId: annotateRun.id, rule: labelRule.rule, paramsKey: labelRule.paramsKey }, select: { id: true } });
    if (!stored) throw bad(`annotate run ${annotateRun.id} stored no ${labelRule.rule} labels with parameters ${labelRule.paramsKey}`);
  }

  const solutions = await selectSolutions(db, selection, {
    datasetId: input.datasetId,
    segmentationMethod,
    annotateRunId: annotateRun?.id ?? null,
    judgeRunId: judgeRun?.id ?? null,
    labelRule,
    judgeTiePolicy: judgeTiePolicy(judgeRun),
  });
  if (solutions.length === 0) {
    throw bad(`the ${selection.kind} selection matched no solution with a "${segmentationMethod}" segmentation; nothing to annotate`);
  }

  const settings = {
    name: input.name,
    instructions: input.instructions,
    scheme: input.scheme,
    annotatorsPerItem: input.annotatorsPerItem,
    leaseSeconds: input.leaseSeconds,
    blind: input.blind,
    datasetId: input.datasetId,
    segmentationMethod,
    annotateRunId: annotateRun?.id ?? null,
    labelRule: storedLabelRule(labelRule),
    judgeRunId: judgeRun?.id ?? null,
    selection,
  };
  const queueId = await db.$transaction(async (tx) => {
    const queue = await tx.annotationQueue.create({ data: { ...settings, createdById: user.id }, select: { id: true } });
    await tx.annotationItem.createMany({
      data: solutions.map((solution, position) => ({ queueId: queue.id, solutionId: solution.solutionId, segmentationId: solution.segmentationId, position })),
    });
    if (annotators.length) {
      await tx.annotationQueueMember.createMany({ data: annotators.map((member) => ({ queueId: queue.id, userId: member.id, addedById: user.id })) });
    }
    await recordAudit(tx, user.id, {
      action: "annotation_queue.created",
      entityType: "AnnotationQueue",
      entityId: queue.id,
      after: { ...settings, ...(blindOffReason ? { blindOffReason } : {}), labelRule, items: solutions.length, members: annotators.map((member) => ({ userId: member.id, email: member.email })) },
    });
    return queue.id;
  });
  // Fresh statistics for the new items: without them the planner takes a queue for a handful of
  // rows and reads all of it on every claim, until autovacuum gets to the table (up to a minute or more).
  await db.$executeRaw`ANALYZE "AnnotationItem"`;
  return { queueId, items: solutions.length, members: annotators.length };
}

/**
 * The segmentation the chosen runs worked on: a queue shows the chunks their
 * labels and verdicts belong to. Runs on different segmentations cannot be
 * shown side by side, so the caller must then name one.
 */
function impliedSegmentationMethod(runs: Array<StoredRun | null>): string {
  const methods = new Map<string, string>();
  for (const run of runs) {
    const method = run ? runSegmentationMethod(run) : null;
    if (run && method) methods.set(method, run.id);
  }
  if (methods.size > 1) {
    throw bad(`the runs used different segmentations (${[...methods.keys()].join(", ")}); choose one with segmentationMethod`);
  }
  return [...methods.keys()][0] ?? DEFAULT_SEGMENTATION_METHOD;
}
