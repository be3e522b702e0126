import { storedScope } from "../../auth/api-tokens";
import type { ServiceContext } from "../args";

/** The caller's tokens, revoked and expired ones included, newest first; the hash never leaves the server. */
export async function listOwnTokens({ db, user }: ServiceContext) {
  const rows = await db.apiToken.findMany({
    where: { userId: user.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, name: true, prefix: true, scope: true, createdAt: true, expiresAt: true, lastUsedAt: true, revokedAt: true },
  });
  return rows.map((row) => ({ ...row, scope: storedScope(row.scope) }));
}
