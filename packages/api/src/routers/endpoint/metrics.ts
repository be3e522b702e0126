import { z } from "zod";
import { endpointMetrics } from "../../services/endpoint/metrics";
import { researchReadProcedure } from "../../trpc";

export const endpointMetricsInput = z.object({ id: z.string().min(1) });

/** Viewer and up: each replica's Prometheus /metrics page, read on the server within 3 s, with the endpoint slots the workers hold. */
export const metrics = researchReadProcedure.input(endpointMetricsInput).query(({ ctx, input }) => endpointMetrics({ ...ctx, input }));
