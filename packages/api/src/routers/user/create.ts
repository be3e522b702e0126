import { ROLES } from "@stepwiser/core";
import { z } from "zod";
import { createUser } from "../../services/user/create";
import { userAdminProcedure } from "../../trpc";

export const createUserInput = z.object({
  email: z.email(),
  name: z.string().trim().min(1).max(200),
  role: z.enum(ROLES),
  password: z.string().min(8).max(200),
});

/** A new account with a password, able to sign in at once; an email already taken is a CONFLICT. */
export const create = userAdminProcedure.input(createUserInput).mutation(({ ctx, input }) => createUser({ ...ctx, input }));
