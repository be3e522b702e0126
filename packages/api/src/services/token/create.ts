import { recordAudit } from "@stepwiser/db";
import { generateApiToken } from "../../auth/api-tokens";
import type { ServiceArgs } from "../args";

/**
 * A new API token for the caller. The plaintext is in this response and
 * nowhere else: only its SHA-256 is stored, so a lost token is revoked and
 * replaced, never shown again.
 */
export async function createToken({ db, user, input }: ServiceArgs<{ name: string }>) {
  const { token, tokenHash, prefix } = generateApiToken();
  return db.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: { userId: user.id, name: input.name, tokenHash, prefix },
      select: { id: true, name: true, prefix: true, createdAt: true },
    });
    await recordAudit(tx, user.id, { action: "api_token.created", entityType: "ApiToken", entityId: row.id, after: { userId: user.id, name: row.name, prefix: row.prefix } });
    return { ...row, token };
  });
}
