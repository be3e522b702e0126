import { z } from "zod";
import { importProcessBenchText } from "../../services/import/processbench";
import { researchManageProcedure } from "../../trpc";

/** The inline form sends the whole file in one request body; larger files go through the upload route. */
const MAX_INLINE_IMPORT_BYTES = 256 * 1024 * 1024;

export const importProcessBenchInput = z.object({
  fileName: z.string().min(1).max(255),
  /** The file's text (ProcessBench JSON). */
  content: z.string().min(1).max(MAX_INLINE_IMPORT_BYTES),
  datasetName: z.string().trim().max(200).optional(),
});

/** Queues the import of a ProcessBench file sent inline (its text in the request body). */
export const processbench = researchManageProcedure.input(importProcessBenchInput).mutation(({ ctx, input }) => importProcessBenchText({ ...ctx, input }));
