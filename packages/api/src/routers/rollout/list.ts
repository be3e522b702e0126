import { z } from "zod";
import { listRollouts } from "../../services/rollout/list";
import { researchReadProcedure } from "../../trpc";

export const listRolloutsInput = z.object({
  runId: z.string().min(1),
  segmentationId: z.string().min(1),
  /** Rollouts continue the first `prefixLength` chunks (0 = from the bare problem). */
  prefixLength: z.number().int().min(0),
});

/** The rollouts behind one Q-value, with their answers and whether each was right. */
export const list = researchReadProcedure.input(listRolloutsInput).query(({ ctx, input }) => listRollouts({ ...ctx, input }));
