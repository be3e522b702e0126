import { z } from "zod";
import { testEndpoint } from "../../services/endpoint/test";
import { researchManageProcedure } from "../../trpc";

export const testEndpointInput = z.object({
  id: z.string().min(1),
  /** Per request; each replica is probed in parallel. */
  timeoutMs: z.number().int().min(100).max(30_000).default(5_000),
});

/** Researcher and up: GET <baseUrl>/models with the stored key and GET /health on each replica of a saved endpoint, from the server. */
export const test = researchManageProcedure.input(testEndpointInput).mutation(({ ctx, input }) => testEndpoint({ ...ctx, input }));
