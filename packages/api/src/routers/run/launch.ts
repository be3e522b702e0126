import { BATCH_RUN_KINDS, createRun, submitRun } from "@stepwiser/jobs";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { researchManageProcedure } from "../../trpc";

export const LAUNCHABLE_RUN_KINDS = ["annotate", "generate", "segment", "judge", "benchmark", "chunk_reset", "best_of_n"] as const;

export const launchRunInput = z.object({
  kind: z.enum(LAUNCHABLE_RUN_KINDS),
  /** Validated against the kind's own schema by the jobs layer; errors name the field. */
  config: z.record(z.string(), z.unknown()),
  /** Create the run without queueing it, to execute it offline through an OpenAI batch file (annotate and judge). */
  offline: z.boolean().default(false),
});

export const launch = researchManageProcedure.input(launchRunInput).mutation(async ({ ctx, input }) => {
  if (input.offline) {
    if (!(BATCH_RUN_KINDS as readonly string[]).includes(input.kind)) {
      throw new TRPCError({ code: "BAD_REQUEST", message: `offline execution supports ${BATCH_RUN_KINDS.join(" and ")} runs, not ${input.kind}` });
    }
    const run = await createRun(ctx.db, { kind: input.kind, config: input.config, createdById: ctx.user.id });
    return { runId: run.id };
  }
  const run = await submitRun(ctx.db, await ctx.getQueue(), { kind: input.kind, config: input.config, createdById: ctx.user.id });
  return { runId: run.id };
});
