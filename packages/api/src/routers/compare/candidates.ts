import { z } from "zod";
import { compareCandidates } from "../../services/compare/candidates";
import { researchReadProcedure } from "../../trpc";

export const compareCandidatesInput = z.object({ datasetId: z.string().min(1) });

/** What the compare page can pick on a dataset: runs with solution-level predictions, annotate runs with stored labels, and annotation queues. */
export const candidates = researchReadProcedure.input(compareCandidatesInput).query(({ ctx, input }) => compareCandidates({ ...ctx, input }));
