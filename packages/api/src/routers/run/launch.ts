import { submitRun } from "@stepwiser/jobs";
import { z } from "zod";
import { researcherProcedure } from "../../trpc";

export const LAUNCHABLE_RUN_KINDS = ["annotate", "generate", "segment", "judge", "benchmark", "chunk_reset", "best_of_n"] as const;

export const launchRunInput = z.object({
  kind: z.enum(LAUNCHABLE_RUN_KINDS),
  /** Validated against the kind's own schema by the jobs layer; errors name the field. */
  config: z.record(z.string(), z.unknown()),
});

export const launch = researcherProcedure.input(launchRunInput).mutation(async ({ ctx, input }) => {
  const run = await submitRun(ctx.db, await ctx.getQueue(), { kind: input.kind, config: input.config, createdById: ctx.user.id });
  return { runId: run.id };
});
