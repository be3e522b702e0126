import { z } from "zod";
import { datasetOverview } from "../../services/dataset/overview";
import { researchReadProcedure } from "../../trpc";

export const datasetOverviewInput = z.object({ datasetId: z.string().min(1) });

/** The dataset's distributions for its overview plots (chunks per solution, chunk lengths, Q-values, label balance, label confidence, first errors), aggregated in PostgreSQL. */
export const overview = researchReadProcedure.input(datasetOverviewInput).query(({ ctx, input }) => datasetOverview({ ...ctx, input }));
