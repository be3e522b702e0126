import { InputError, NotFoundError, type UserRole } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";

/** Gives an account another role, audited; an admin cannot demote themselves (another admin must). */
export async function setUserRole({ db, user, input }: ServiceArgs<{ userId: string; role: UserRole }>) {
  if (input.userId === user.id && input.role !== "admin") {
    throw new InputError("admins cannot demote themselves; ask another admin");
  }
  return db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: input.userId }, select: { role: true } });
    if (!before) throw new NotFoundError(`user ${input.userId} does not exist`);
    const after = await tx.user.update({ where: { id: input.userId }, data: { role: input.role }, select: { id: true, role: true } });
    await recordAudit(tx, user.id, { action: "user.role_changed", entityType: "User", entityId: input.userId, before, after: { role: after.role } });
    return after;
  });
}
