import { z } from "zod";
import { createToken } from "../../services/token/create";
import { accountProcedure } from "../../trpc";

export const createTokenInput = z.object({ name: z.string().trim().min(1).max(100) });

/** A new API token for the caller; the plaintext is in this response and nowhere else. */
export const create = accountProcedure.input(createTokenInput).mutation(({ ctx, input }) => createToken({ ...ctx, input }));
