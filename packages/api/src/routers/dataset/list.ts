import { listDatasets } from "../../services/dataset/list";
import { researchReadProcedure } from "../../trpc";

/** Every dataset, newest first, with its solution and problem counts. */
export const list = researchReadProcedure.query(({ ctx }) => listDatasets(ctx));
