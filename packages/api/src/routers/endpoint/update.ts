import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { endpointAdminProcedure } from "../../trpc";
import { apiKeySchema, auditSnapshot, endpointFields, isUniqueViolation, nameTakenMessage, publicEndpointSelect, toPublicEndpoint } from "./fields";
import { recordAudit } from "@stepwiser/db";

export const updateEndpointInput = z.object({
  id: z.string().min(1),
  ...z.object(endpointFields).partial().shape,
  /** Absent = keep the stored key, "" = remove it, anything else replaces it. */
  apiKey: apiKeySchema.optional(),
});

/** Admin only, like create: endpoints route every run's traffic and hold keys. Absent fields are left as they are. */
export const update = endpointAdminProcedure.input(updateEndpointInput).mutation(async ({ ctx, input }) => {
  const { id, apiKey, ...fields } = input;
  try {
    return await ctx.db.$transaction(async (tx) => {
      const before = await tx.endpoint.findUnique({ where: { id }, select: publicEndpointSelect });
      if (!before) throw new TRPCError({ code: "NOT_FOUND", message: `endpoint ${id} does not exist` });
      if (fields.name !== undefined && fields.name !== before.name) {
        const taken = await tx.endpoint.findUnique({ where: { name: fields.name }, select: { id: true } });
        if (taken) throw new TRPCError({ code: "CONFLICT", message: nameTakenMessage(fields.name) });
      }
      const after = await tx.endpoint.update({
        where: { id },
        data: { ...fields, ...(apiKey === undefined ? {} : { apiKey: apiKey === "" ? null : apiKey }) },
        select: publicEndpointSelect,
      });
      await recordAudit(tx, ctx.user.id, { action: "endpoint.updated", entityType: "Endpoint", entityId: id, before: auditSnapshot(before), after: auditSnapshot(after) });
      return toPublicEndpoint(after);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new TRPCError({ code: "CONFLICT", message: nameTakenMessage(fields.name ?? ""), cause: error });
    throw error;
  }
});
