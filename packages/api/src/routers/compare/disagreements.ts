import { DISAGREEMENT_KINDS } from "@stepwiser/core";
import { z } from "zod";
import { compareDisagreements } from "../../services/compare/disagreements";
import { researchReadProcedure } from "../../trpc";

export const compareDisagreementsInput = z.object({
  runA: z.string().min(1),
  runB: z.string().min(1),
  subset: z.string().min(1).optional(),
  /** "none": gold says error-free; "error": gold has an error; a number: the gold first error is that chunk. */
  goldFirstError: z.union([z.enum(["none", "error"]), z.number().int().min(0)]).optional(),
  kind: z.enum(DISAGREEMENT_KINDS).optional(),
  /** Offset into the filtered list. */
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(50),
});

/** Solutions two runs predict differently (on the gold they are compared on), in file order, with who was right, counted by kind. */
export const disagreements = researchReadProcedure.input(compareDisagreementsInput).query(({ ctx, input }) => compareDisagreements({ ...ctx, input }));
