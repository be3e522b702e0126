import type { ServiceContext } from "../args";

/** The caller's tokens, revoked ones included, newest first; the hash never leaves the server. */
export async function listOwnTokens({ db, user }: ServiceContext) {
  return db.apiToken.findMany({
    where: { userId: user.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}
