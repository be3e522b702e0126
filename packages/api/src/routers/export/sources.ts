import { exportSources } from "../../services/export/sources";
import { researchReadProcedure } from "../../trpc";

/** Runs an export can read: label sources (annotate runs, imports with chunk labels) with their rules, and prediction sources (benchmark and judge runs). */
export const sources = researchReadProcedure.query(({ ctx }) => exportSources(ctx));
