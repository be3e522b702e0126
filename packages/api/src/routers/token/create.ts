import { z } from "zod";
import { generateApiToken } from "../../auth/api-tokens";
import { accountProcedure } from "../../trpc";
import { recordAudit } from "@stepwiser/db";

export const createTokenInput = z.object({ name: z.string().trim().min(1).max(100) });

/**
 * A new API token for the caller. The plaintext is in this response and
 * nowhere else: only its SHA-256 is stored, so a lost token is revoked and
 * replaced, never shown again.
 */
export const create = accountProcedure.input(createTokenInput).mutation(async ({ ctx, input }) => {
  const { token, tokenHash, prefix } = generateApiToken();
  return ctx.db.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: { userId: ctx.user.id, name: input.name, tokenHash, prefix },
      select: { id: true, name: true, prefix: true, createdAt: true },
    });
    await recordAudit(tx, ctx.user.id, { action: "api_token.created", entityType: "ApiToken", entityId: row.id, after: { userId: ctx.user.id, name: row.name, prefix: row.prefix } });
    return { ...row, token };
  });
});
