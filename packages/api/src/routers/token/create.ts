import { API_TOKEN_SCOPES, DEFAULT_API_TOKEN_LIFETIME_DAYS, DEFAULT_API_TOKEN_SCOPE, MAX_API_TOKEN_LIFETIME_DAYS } from "@stepwiser/core";
import { z } from "zod";
import { createToken } from "../../services/token/create";
import { accountProcedure } from "../../trpc";

export const createTokenInput = z.object({
  name: z.string().trim().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(MAX_API_TOKEN_LIFETIME_DAYS).default(DEFAULT_API_TOKEN_LIFETIME_DAYS),
  scope: z.enum(API_TOKEN_SCOPES).default(DEFAULT_API_TOKEN_SCOPE),
});

/** A new API token for the caller, made from a signed-in session only; the plaintext is in this response and nowhere else. */
export const create = accountProcedure.input(createTokenInput).mutation(({ ctx, input }) => createToken({ ...ctx, input }));
