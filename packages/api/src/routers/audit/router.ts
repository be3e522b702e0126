import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from "@stepwiser/db";
import { z } from "zod";
import { createRouter, userAdminProcedure } from "../../trpc";
import { AUDIT_ACTION_LABELS, auditActionLabel } from "./labels";

export const auditListInput = z.object({
  /** Only the actions of the `AuditEvent` union can be asked for. */
  action: z.enum(AUDIT_ACTIONS).optional(),
  entityType: z.enum(AUDIT_ENTITY_TYPES).optional(),
  entityId: z.string().min(1).max(200).optional(),
  actorId: z.string().min(1).max(200).optional(),
  /** The id of the last row of the previous page (newest first). */
  cursor: z.string().regex(/^\d+$/).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

/** The action filter's options, in the union's order, with their labels. */
const actions = userAdminProcedure.query(() => AUDIT_ACTIONS.map((action) => ({ action, label: AUDIT_ACTION_LABELS[action] })));

/** The audit log, newest first, filtered by action, entity and actor; `before`/`after` as stored. */
const list = userAdminProcedure.input(auditListInput).query(async ({ ctx, input }) => {
  const rows = await ctx.db.auditLog.findMany({
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
});

export const auditRouter = createRouter({ actions, list });
