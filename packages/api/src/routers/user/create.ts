import { ROLES } from "@stepwiser/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createUserWithPassword } from "../../auth/users";
import { userAdminProcedure } from "../../trpc";

export const createUserInput = z.object({
  email: z.email(),
  name: z.string().trim().min(1).max(200),
  role: z.enum(ROLES),
  password: z.string().min(8).max(200),
});

export const create = userAdminProcedure.input(createUserInput).mutation(async ({ ctx, input }) => {
  const taken = await ctx.db.user.findUnique({ where: { email: input.email.toLowerCase() }, select: { id: true } });
  if (taken) throw new TRPCError({ code: "CONFLICT", message: `a user with email ${input.email} already exists` });
  return createUserWithPassword(ctx.db, input, ctx.user.id);
});
