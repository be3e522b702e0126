import { NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { currentSessionId, deleteSessions } from "./sessions";

/**
 * Signs an account out everywhere without disabling it: its sessions are
 * deleted (an admin ending their own keeps the one they did it from); its API
 * tokens keep working. Audited with the count.
 */
export async function endUserSessions({ db, user, credential, input }: ServiceArgs<{ userId: string }>) {
  return db.$transaction(async (tx) => {
    const target = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true } });
    if (!target) throw new NotFoundError(`user ${input.userId} does not exist`);
    const sessionsEnded = await deleteSessions(tx, target.id, target.id === user.id ? currentSessionId(credential) : undefined);
    await recordAudit(tx, user.id, { action: "user.sessions_ended", entityType: "User", entityId: target.id, after: { sessionsEnded } });
    return { id: target.id, sessionsEnded };
  });
}
