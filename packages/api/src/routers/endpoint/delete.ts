import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { endpointAdminProcedure } from "../../trpc";
import { auditSnapshot, publicEndpointSelect } from "./fields";
import { recordAudit } from "@stepwiser/db";

export const deleteEndpointInput = z.object({ id: z.string().min(1) });

/**
 * Admin only (endpoints route traffic and hold keys). Safe while runs use it:
 * a run snapshots the endpoint's URLs and model when it is launched.
 */
export const remove = endpointAdminProcedure.input(deleteEndpointInput).mutation(async ({ ctx, input }) => {
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.endpoint.findUnique({ where: { id: input.id }, select: publicEndpointSelect });
    if (!before) throw new TRPCError({ code: "NOT_FOUND", message: `endpoint ${input.id} does not exist` });
    await tx.endpoint.delete({ where: { id: input.id } });
    await recordAudit(tx, ctx.user.id, { action: "endpoint.deleted", entityType: "Endpoint", entityId: input.id, before: auditSnapshot(before) });
    return { ok: true, id: input.id, name: before.name };
  });
});
