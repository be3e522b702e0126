import { z } from "zod";
import { endpointFields, apiKeySchema } from "../../services/endpoint/fields";
import { updateEndpoint } from "../../services/endpoint/update";
import { endpointAdminProcedure } from "../../trpc";

export const updateEndpointInput = z.object({
  id: z.string().min(1),
  ...z.object(endpointFields).partial().shape,
  /** Absent = keep the stored key, "" = remove it, anything else replaces it. */
  apiKey: apiKeySchema.optional(),
});

/** Admin only, like create: endpoints route every run's traffic and hold keys. Absent fields are left as they are. */
export const update = endpointAdminProcedure.input(updateEndpointInput).mutation(({ ctx, input }) => updateEndpoint({ ...ctx, input }));
