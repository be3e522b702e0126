import { ROLES } from "@stepwiser/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { userAdminProcedure } from "../../trpc";
import { recordAudit } from "@stepwiser/db";

export const setRoleInput = z.object({ userId: z.string().min(1), role: z.enum(ROLES) });

export const setRole = userAdminProcedure.input(setRoleInput).mutation(async ({ ctx, input }) => {
  if (input.userId === ctx.user.id && input.role !== "admin") {
    throw new TRPCError({ code: "BAD_REQUEST", message: "admins cannot demote themselves; ask another admin" });
  }
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: input.userId }, select: { role: true } });
    if (!before) throw new TRPCError({ code: "NOT_FOUND", message: `user ${input.userId} does not exist` });
    const after = await tx.user.update({ where: { id: input.userId }, data: { role: input.role }, select: { id: true, role: true } });
    await recordAudit(tx, ctx.user.id, { action: "user.role_changed", entityType: "User", entityId: input.userId, before, after: { role: after.role } });
    return after;
  });
});
