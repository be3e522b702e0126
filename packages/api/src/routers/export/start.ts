import { exportSpecSchema } from "@stepwiser/jobs";
import { z } from "zod";
import { startExport } from "../../services/export/start";
import { researchManageProcedure } from "../../trpc";

export const startExportInput = z.object({ spec: exportSpecSchema });

/** Queues an export run (its source and options are checked first); its files appear in `export.list` once the worker has written them. */
export const start = researchManageProcedure.input(startExportInput).mutation(({ ctx, input }) => startExport({ ...ctx, input }));
