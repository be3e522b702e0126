import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { endpointAdminProcedure } from "../../trpc";
import { apiKeySchema, auditSnapshot, endpointFields, isUniqueViolation, nameTakenMessage, publicEndpointSelect, toPublicEndpoint } from "./fields";
import { recordAudit } from "@stepwiser/db";

export const createEndpointInput = z.object({
  ...endpointFields,
  maxConcurrency: endpointFields.maxConcurrency.default(64),
  /** Absent or "" = no key. */
  apiKey: apiKeySchema.optional(),
});

/**
 * Admin only: an endpoint decides where runs send their traffic (prompts and
 * data included) and holds the key that pays for it.
 */
export const create = endpointAdminProcedure.input(createEndpointInput).mutation(async ({ ctx, input }) => {
  const taken = await ctx.db.endpoint.findUnique({ where: { name: input.name }, select: { id: true } });
  if (taken) throw new TRPCError({ code: "CONFLICT", message: nameTakenMessage(input.name) });
  const data = { ...input, apiKey: input.apiKey ? input.apiKey : null };
  try {
    return await ctx.db.$transaction(async (tx) => {
      const created = await tx.endpoint.create({ data, select: publicEndpointSelect });
      await recordAudit(tx, ctx.user.id, { action: "endpoint.created", entityType: "Endpoint", entityId: created.id, after: auditSnapshot(created) });
      return toPublicEndpoint(created);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new TRPCError({ code: "CONFLICT", message: nameTakenMessage(input.name), cause: error });
    throw error;
  }
});
