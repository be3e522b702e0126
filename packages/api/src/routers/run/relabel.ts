import { labelRuleSchema } from "@stepwiser/core";
import { z } from "zod";
import { relabelRun } from "../../services/run/relabel";
import { researchManageProcedure } from "../../trpc";

export const relabelRunInput = z.object({ id: z.string().min(1), rules: z.array(labelRuleSchema).min(1).max(32) });

/** New label parameters for a finished annotate run, from its stored Q-values: no request is sent. */
export const relabel = researchManageProcedure.input(relabelRunInput).mutation(({ ctx, input }) => relabelRun({ ...ctx, input }));
