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
  /** The run's name (generated from kind, model and key parameters when absent), Markdown notes and tags; checked by the jobs layer, errors name the field. */
  name: z.string().optional().describe('What to call the run; when absent it is generated from kind, model and key parameters, e.g. "judge · sim-judge-strong · K=3" (at most 120 characters)'),
  notes: z.string().optional().describe("Markdown notes on the run (at most 20,000 characters)"),
  tags: z.array(z.string()).optional().describe("Tags (at most 20, each at most 40 characters: letters, digits, spaces and . _ - : / +); trimmed, case-insensitive duplicates dropped"),
});

/** Creates and queues a run (or, offline, only creates it for a batch file). */
export const launch = researchManageProcedure.input(launchRunInput).mutation(({ ctx, input }) => launchRun({ ...ctx, input }));
