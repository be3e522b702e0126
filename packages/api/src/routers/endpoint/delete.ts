import { z } from "zod";
import { deleteEndpoint } from "../../services/endpoint/delete";
import { endpointAdminProcedure } from "../../trpc";

export const deleteEndpointInput = z.object({ id: z.string().min(1) });

/** Admin only (endpoints route traffic and hold keys). Safe while runs use it: a run snapshots the endpoint when it is launched. */
export const remove = endpointAdminProcedure.input(deleteEndpointInput).mutation(({ ctx, input }) => deleteEndpoint({ ...ctx, input }));
