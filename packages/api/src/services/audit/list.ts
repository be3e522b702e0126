import type { AuditAction, AuditEntityType } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { auditActionLabel } from "./labels";

export interface AuditListInput {
  action?: AuditAction;
  entityType?: AuditEntityType;
  entityId?: string;
  actorId?: string;
  /** The id of the last row of the previous page (newest first). */
  cursor?: string;
  limit: number;
}

/** The audit log, newest first, filtered by action, entity and actor; `before`/`after` as stored. */
export async function listAuditEntries({ db, input }: ServiceArgs<AuditListInput>) {
  const rows = await db.auditLog.findMany({
    where: {
      action: input.action,
      entityType: input.entityType,
      entityId: input.entityId,
      actorId: input.actorId,
      ...(input.cursor ? { id: { lt: BigInt(input.cursor) } } : {}),
    },
    orderBy: { id: "desc" },
    take: input.limit + 1,
    select: { id: true, action: true, entityType: true, entityId: true, before: true, after: true, createdAt: true, actor: { select: { id: true, email: true, name: true } } },
  });
  const page = rows.slice(0, input.limit);
  return {
    entries: page.map((row) => ({ ...row, id: row.id.toString(), label: auditActionLabel(row.action) })),
    nextCursor: rows.length > input.limit ? page[page.length - 1]!.id.toString() : null,
  };
}
