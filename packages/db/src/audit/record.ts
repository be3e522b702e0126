import type { AuditLog, Prisma } from "../generated/prisma/client";
import type { AuditEvent } from "./events";

/** The Prisma client or an interactive transaction's client: anything with the `auditLog` delegate. */
export type AuditWriter = Pick<Prisma.TransactionClient, "auditLog">;

/**
 * Records one audit event: the single place that writes `AuditLog`. `actorId`
 * is the user who acted, or null for the system (a worker, the launcher).
 *
 * Returns Prisma's lazy promise without awaiting it, so the call also fits the
 * array form of `db.$transaction([...])`; in an interactive transaction pass
 * its `tx` and await the result, as with any write.
 */
export function recordAudit(tx: AuditWriter, actorId: string | null | undefined, event: AuditEvent): Prisma.PrismaPromise<AuditLog> {
  const { action, entityType, entityId } = event;
  const before = "before" in event ? (event.before as Prisma.InputJsonValue) : undefined;
  const after = "after" in event ? (event.after as Prisma.InputJsonValue) : undefined;
  return tx.auditLog.create({ data: { actorId: actorId ?? null, action, entityType, entityId, before, after } });
}
