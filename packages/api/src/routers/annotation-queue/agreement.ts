import { z } from "zod";
import { queueAgreement } from "../../services/annotation-queue/agreement";
import { queueMemberProcedure } from "../../trpc";

export const agreementInput = z.object({ queueId: z.string().min(1) });

/** Inter-annotator agreement of a queue (Fleiss' and Cohen's κ over submitted work) and the units annotators disagree on. */
export const agreement = queueMemberProcedure("research.read")
  .input(agreementInput)
  .query(({ ctx, input }) => queueAgreement({ ...ctx, input }));
