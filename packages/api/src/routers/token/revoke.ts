import { z } from "zod";
import { revokeToken } from "../../services/token/revoke";
import { accountProcedure } from "../../trpc";

export const revokeTokenInput = z.object({ id: z.string().min(1) });

/** Revokes one of the caller's tokens (an admin may revoke anyone's); someone else's is NOT_FOUND, so ids cannot be probed. */
export const revoke = accountProcedure.input(revokeTokenInput).mutation(({ ctx, input }) => revokeToken({ ...ctx, input }));
