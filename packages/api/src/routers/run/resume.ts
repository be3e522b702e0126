import { z } from "zod";
import { resumeStoppedRun } from "../../services/run/resume";
import { researchManageProcedure } from "../../trpc";

export const resumeRunInput = z.object({ id: z.string().min(1) });

/** Queues a cancelled or interrupted run again; its done units are kept. */
export const resume = researchManageProcedure.input(resumeRunInput).mutation(({ ctx, input }) => resumeStoppedRun({ ...ctx, input }));
