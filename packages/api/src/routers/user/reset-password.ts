import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "../../auth/users";
import { resetUserPassword } from "../../services/user/reset-password";
import { userAdminProcedure } from "../../trpc";

export const resetPasswordInput = z.object({
  userId: z.string().min(1),
  /** Left out: one is generated and returned once. */
  password: z.string().min(MIN_PASSWORD_LENGTH).max(200).optional(),
});

/** Sets an account's password (given, or generated and returned once) and ends its sessions. */
export const resetPassword = userAdminProcedure.input(resetPasswordInput).mutation(({ ctx, input }) => resetUserPassword({ ...ctx, input }));
