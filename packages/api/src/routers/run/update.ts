import { z } from "zod";
import { updateRunDescription } from "../../services/run/update";
import { researchManageProcedure } from "../../trpc";

export const updateRunInput = z.object({
  id: z.string().min(1),
  /** A new name; null goes back to the generated one. Checked by the service; errors name the field. */
  name: z.string().nullable().optional(),
  notes: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

/** Renames a run, or changes its notes or tags (audited). */
export const update = researchManageProcedure.input(updateRunInput).mutation(({ ctx, input }) => updateRunDescription({ ...ctx, input }));
