import { ROLES } from "@stepwiser/core";
import { z } from "zod";
import { setUserRole } from "../../services/user/set-role";
import { userAdminProcedure } from "../../trpc";

export const setRoleInput = z.object({ userId: z.string().min(1), role: z.enum(ROLES) });

/** Gives an account another role (audited); an admin cannot demote themselves. */
export const setRole = userAdminProcedure.input(setRoleInput).mutation(({ ctx, input }) => setUserRole({ ...ctx, input }));
