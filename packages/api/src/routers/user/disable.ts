import { z } from "zod";
import { disableUser, enableUser } from "../../services/user/disable";
import { userAdminProcedure } from "../../trpc";

export const userIdInput = z.object({ userId: z.string().min(1) });

/** Disables an account: no sign-in, its sessions deleted and its API tokens revoked at once (audited); not oneself, not the last active admin. */
export const disable = userAdminProcedure.input(userIdInput).mutation(({ ctx, input }) => disableUser({ ...ctx, input }));

/** Enables a disabled account again; its revoked tokens stay revoked. */
export const enable = userAdminProcedure.input(userIdInput).mutation(({ ctx, input }) => enableUser({ ...ctx, input }));
