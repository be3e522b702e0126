import { z } from "zod";
import { createEndpoint } from "../../services/endpoint/create";
import { apiKeySchema, endpointFields } from "../../services/endpoint/fields";
import { endpointAdminProcedure } from "../../trpc";

export const createEndpointInput = z.object({
  ...endpointFields,
  maxConcurrency: endpointFields.maxConcurrency.default(64),
  /** Absent or "" = no key. */
  apiKey: apiKeySchema.optional(),
});

/** Admin only: an endpoint decides where runs send their traffic (prompts and data included) and holds the key that pays for it. */
export const create = endpointAdminProcedure.input(createEndpointInput).mutation(({ ctx, input }) => createEndpoint({ ...ctx, input }));
