import { ANNOTATION_SCHEMES } from "@stepwiser/core";
import { z } from "zod";
import { createAnnotationQueue } from "../../services/annotation-queue/create-queue";
import { queueLabelRuleSchema } from "../../services/annotation-queue/queue-runs";
import { queueSelectionSchema } from "../../services/annotation-queue/select-solutions";
import { queueManageProcedure } from "../../trpc";

export const createQueueInput = z.object({
  name: z.string().trim().min(1).max(200),
  instructions: z.string().max(20_000).default(""),
  scheme: z.enum(ANNOTATION_SCHEMES).default("rating"),
  annotatorsPerItem: z.number().int().min(1).max(10).default(1),
  leaseSeconds: z.number().int().min(1).max(86_400).default(900),
  /** Blind review by default: annotators see no model signal until they submit. */
  blind: z.boolean().default(true),
  /** Required with blind: false: why annotators may see the model's labels before rating (kept in the audit log). */
  blindOffReason: z.string().max(2000).optional(),
  datasetId: z.string().min(1),
  /** Default: the segmentation the given runs used, else "self-segmented". */
  segmentationMethod: z.string().min(1).optional(),
  /** The annotate run whose Monte-Carlo labels and Q-values annotators see (after submitting, in a blind queue). */
  annotateRunId: z.string().min(1).optional(),
  /** Default: the annotate run's first label rule. */
  labelRule: queueLabelRuleSchema.optional(),
  judgeRunId: z.string().min(1).optional(),
  selection: queueSelectionSchema,
  /** Accounts that may work the queue besides researchers and admins (annotators see only their member queues). */
  annotatorIds: z.array(z.string().min(1)).max(500).default([]),
});

/** A queue of solutions for human audit, its items chosen once and written with it in one transaction. */
export const createQueue = queueManageProcedure.input(createQueueInput).mutation(({ ctx, input }) => createAnnotationQueue({ ...ctx, input }));
