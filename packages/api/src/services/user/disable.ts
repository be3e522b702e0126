import { ConflictError, InputError, NotFoundError } from "@stepwiser/core";
import { recordAudit, type Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { deleteSessions } from "./sessions";

interface LockedUser {
  id: string;
  role: string;
  disabledAt: Date | null;
}

/**
 * Locks the account and every active admin's row, in id order, for the rest of the
 * transaction: of two admins disabling each other at once, the second sees the first's
 * change and is refused, so the studio always keeps an admin who can sign in.
 */
async function lockAccountAndActiveAdmins(tx: Prisma.TransactionClient, userId: string): Promise<{ target: LockedUser | undefined; activeAdmins: string[] }> {
  const rows = await tx.$queryRaw<LockedUser[]>`
    SELECT id, role::text AS role, "disabledAt" FROM "user"
     WHERE id = ${userId} OR (role = 'admin' AND "disabledAt" IS NULL)
     ORDER BY id FOR UPDATE`;
  return { target: rows.find((row) => row.id === userId), activeAdmins: rows.filter((row) => row.role === "admin" && !row.disabledAt).map((row) => row.id) };
}

/**
 * Disables an account, in one transaction: it can no longer sign in, every
 * session it has is deleted and every live API token revoked, so its cookies
 * and scripts fail on their next request. Audited with the counts. An admin
 * cannot disable themselves, and the last active admin cannot be disabled.
 * Disabling a disabled account changes nothing.
 */
export async function disableUser({ db, user, input }: ServiceArgs<{ userId: string }>, now = new Date()) {
  if (input.userId === user.id) throw new InputError("admins cannot disable their own account; ask another admin", { field: "userId" });
  return db.$transaction(async (tx) => {
    const { target, activeAdmins } = await lockAccountAndActiveAdmins(tx, input.userId);
    if (!target) throw new NotFoundError(`user ${input.userId} does not exist`);
    if (target.disabledAt) return { id: target.id, disabledAt: target.disabledAt, sessionsEnded: 0, apiTokensRevoked: 0 };
    if (target.role === "admin" && activeAdmins.every((id) => id === target.id)) {
      throw new ConflictError("this is the last active admin; make another account admin before disabling it");
    }
    await tx.user.update({ where: { id: target.id }, data: { disabledAt: now } });
    const sessionsEnded = await deleteSessions(tx, target.id);
    const { count: apiTokensRevoked } = await tx.apiToken.updateMany({ where: { userId: target.id, revokedAt: null }, data: { revokedAt: now } });
    await recordAudit(tx, user.id, {
      action: "user.disabled",
      entityType: "User",
      entityId: target.id,
      before: { disabledAt: null },
      after: { disabledAt: now.toISOString(), sessionsEnded, apiTokensRevoked },
    });
    return { id: target.id, disabledAt: now, sessionsEnded, apiTokensRevoked };
  });
}

/** Enables a disabled account again: it can sign in; the tokens revoked when it was disabled stay revoked. Enabling an enabled account changes nothing. */
export async function enableUser({ db, user, input }: ServiceArgs<{ userId: string }>) {
  return db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true, disabledAt: true } });
    if (!before) throw new NotFoundError(`user ${input.userId} does not exist`);
    if (!before.disabledAt) return { id: before.id, disabledAt: null };
    // Conditional, so of two concurrent enables only one writes the audit row.
    const { count } = await tx.user.updateMany({ where: { id: before.id, disabledAt: { not: null } }, data: { disabledAt: null } });
    if (count === 1) {
      await recordAudit(tx, user.id, { action: "user.enabled", entityType: "User", entityId: before.id, before: { disabledAt: before.disabledAt.toISOString() }, after: { disabledAt: null } });
    }
    return { id: before.id, disabledAt: null };
  });
}
