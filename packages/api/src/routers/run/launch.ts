import { z } from "zod";
import { LAUNCHABLE_RUN_KINDS, launchRun } from "../../services/run/launch";
import { researchManageProcedure } from "../../trpc";

export const launchRunInput = z.object({
  kind: z.enum(LAUNCHABLE_RUN_KINDS),
  /** Validated against the kind's own schema by the jobs layer; errors name the field. */
  config: z.record(z.string(), z.unknown()),
  /** Create the run without queueing it, to execute it offline through an OpenAI batch file (annotate and judge). */
  offline: z.boolean().default(false),
  /** The run's name (generated from kind, model and key parameters when absent), Markdown notes and tags; checked by the jobs layer, errors name the field. */
  name: z.string().optional(),
  notes: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

/** Creates and queues a run (or, offline, only creates it for a batch file). */
export const launch = researchManageProcedure.input(launchRunInput).mutation(({ ctx, input }) => launchRun({ ...ctx, input }));
