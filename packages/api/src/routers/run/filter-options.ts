import { runFilterOptions } from "../../services/run/list";
import { researchReadProcedure } from "../../trpc";

/** What the runs list's filters offer: every model, tag, creator and dataset some run has. */
export const filterOptions = researchReadProcedure.query(({ ctx }) => runFilterOptions({ ...ctx, input: undefined }));
