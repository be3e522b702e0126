import { apiTokenExpiry, ForbiddenError, type ApiTokenScope } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import { generateApiToken } from "../../auth/api-tokens";
import type { ServiceArgs } from "../args";

export const TOKENS_FROM_SESSIONS_MESSAGE = "API tokens are created from a signed-in session (Settings → API tokens), not with another API token";

export interface NewTokenInput {
  name: string;
  /** 1 to MAX_API_TOKEN_LIFETIME_DAYS. */
  expiresInDays: number;
  scope: ApiTokenScope;
}

/**
 * A new API token for the caller. The plaintext is in this response and
 * nowhere else: only its SHA-256 is stored, so a lost token is revoked and
 * replaced, never shown again. A request authenticated by a token is refused:
 * revoking a leaked token must leave no token it made behind.
 */
export async function createToken({ db, user, credential, input }: ServiceArgs<NewTokenInput>, now = new Date()) {
  if (credential?.kind === "token") throw new ForbiddenError(TOKENS_FROM_SESSIONS_MESSAGE);
  const expiresAt = apiTokenExpiry(input.expiresInDays, now);
  const { token, tokenHash, prefix } = generateApiToken();
  return db.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: { userId: user.id, name: input.name, tokenHash, prefix, scope: input.scope, expiresAt, createdAt: now },
      select: { id: true, name: true, prefix: true, scope: true, createdAt: true, expiresAt: true },
    });
    await recordAudit(tx, user.id, {
      action: "api_token.created",
      entityType: "ApiToken",
      entityId: row.id,
      after: { userId: user.id, name: row.name, prefix: row.prefix, scope: input.scope, expiresAt: expiresAt.toISOString() },
    });
    return { ...row, scope: input.scope, token };
  });
}
