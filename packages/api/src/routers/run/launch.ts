import { z } from "zod";
import { LAUNCHABLE_RUN_KINDS, launchRun } from "../../services/run/launch";
import { researchManageProcedure } from "../../trpc";

/** Also the body of the REST API's `POST /api/v1/runs` (strict there), so both launch the same things; the descriptions go into its OpenAPI document. */
export const launchRunInput = z.object({
  kind: z.enum(LAUNCHABLE_RUN_KINDS),
  /** Validated against the kind's own schema by the jobs layer; errors name the field. */
  config: z
    .record(z.string(), z.unknown())
    .describe("The kind's configuration (its JSON Schema is what the launch form is built from: tRPC run.schemas), checked by the worker's own schema; an error names the field"),
  /** Create the run without queueing it, to execute it offline through an OpenAI batch file (annotate and judge). */
  offline: z.boolean().default(false).describe("Create the run without queueing it, to execute it through an OpenAI batch file (annotate and judge only)"),
});

/** Creates and queues a run (or, offline, only creates it for a batch file). */
export const launch = researchManageProcedure.input(launchRunInput).mutation(({ ctx, input }) => launchRun({ ...ctx, input }));
