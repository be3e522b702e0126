import { z } from "zod";
import { LAUNCHABLE_RUN_KINDS } from "../../services/run/launch";
import { planRun } from "../../services/run/plan";
import { researchReadProcedure } from "../../trpc";

/** The estimate of a run of this configuration before it is launched: requests, tokens, hours, storage and cost. */
export const plan = researchReadProcedure
  .input(
    z.object({
      kind: z.enum(LAUNCHABLE_RUN_KINDS),
      config: z.record(z.string(), z.unknown()),
      tokensPerSecond: z.number().positive().finite().max(1e9).optional(),
    }),
  )
  .query(({ ctx, input }) => planRun({ ...ctx, input }));
