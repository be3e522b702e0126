import { z } from "zod";
import { importReport } from "../../services/import/report";
import { researchReadProcedure } from "../../trpc";

export const importReportInput = z.object({
  runId: z.string().min(1),
  kind: z.enum(["invalid", "ignored"]).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(200).default(50),
});

/** An import run's report: counts by what became of the file's records, and a page of the records left out or ignored. */
export const report = researchReadProcedure.input(importReportInput).query(({ ctx, input }) => importReport({ ...ctx, input }));
