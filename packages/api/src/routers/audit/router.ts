import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from "@stepwiser/db";
import { z } from "zod";
import { AUDIT_ACTION_LABELS } from "../../services/audit/labels";
import { listAuditEntries } from "../../services/audit/list";
import { createRouter, userAdminProcedure } from "../../trpc";

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
const list = userAdminProcedure.input(auditListInput).query(({ ctx, input }) => listAuditEntries({ ...ctx, input }));

export const auditRouter = createRouter({ actions, list });
