import { can, NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";

/**
 * Revokes one of the caller's tokens (an admin may revoke anyone's). Someone
 * else's token is NOT_FOUND rather than FORBIDDEN, so ids cannot be probed.
 * Revoking a revoked token returns it unchanged and writes no audit row.
 */
export async function revokeToken({ db, user, input }: ServiceArgs<{ id: string }>) {
  const select = { id: true, userId: true, name: true, prefix: true, revokedAt: true } as const;
  return db.$transaction(async (tx) => {
    const token = await tx.apiToken.findUnique({ where: { id: input.id }, select });
    if (!token || (token.userId !== user.id && !can(user.role, "users.manage"))) {
      throw new NotFoundError(`API token ${input.id} does not exist`);
    }
    if (token.revokedAt) return { id: token.id, revokedAt: token.revokedAt };
    const revokedAt = new Date();
    // Conditional, so of two concurrent revokes only one writes the audit row.
    const { count } = await tx.apiToken.updateMany({ where: { id: token.id, revokedAt: null }, data: { revokedAt } });
    if (count === 0) {
      const current = await tx.apiToken.findUniqueOrThrow({ where: { id: token.id }, select: { revokedAt: true } });
      return { id: token.id, revokedAt: current.revokedAt! };
    }
    await recordAudit(tx, user.id, {
      action: "api_token.revoked",
      entityType: "ApiToken",
      entityId: token.id,
      before: { userId: token.userId, name: token.name, prefix: token.prefix, revokedAt: null },
      after: { revokedAt: revokedAt.toISOString() },
    });
    return { id: token.id, revokedAt };
  });
}
