import { recordAudit, type AuditQueueSettings } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { requireBlindOffReason } from "./blind";
import { queueNotFound } from "./membership";

export interface QueueSettingsChange {
  queueId: string;
  name?: string;
  instructions?: string;
  annotatorsPerItem?: number;
  leaseSeconds?: number;
  blind?: boolean;
  /** Required when `blind` goes from true to false: why annotators may see the model's labels before rating. */
  blindOffReason?: string;
  /** true archives the queue (no new leases), false brings it back. */
  archived?: boolean;
}

const queueSettingsSelect = { id: true, name: true, instructions: true, annotatorsPerItem: true, leaseSeconds: true, blind: true, archivedAt: true } as const;

/**
 * Changes a queue's settings. Items and the selection stay as created: a queue
 * is a fixed sample, so its agreement numbers keep meaning the same thing.
 * The audit row holds only the fields that changed, before and after.
 * Turning blind review off is refused without a reason, which the audit row keeps.
 */
export async function updateQueueSettings({ db, user, input }: ServiceArgs<QueueSettingsChange>) {
  return db.$transaction(async (tx) => {
    const current = await tx.annotationQueue.findUnique({ where: { id: input.queueId }, select: queueSettingsSelect });
    if (!current) throw queueNotFound(input.queueId);
    const wanted = {
      name: input.name,
      instructions: input.instructions,
      annotatorsPerItem: input.annotatorsPerItem,
      leaseSeconds: input.leaseSeconds,
      blind: input.blind,
      // Archiving twice keeps the first date.
      archivedAt: input.archived === undefined ? undefined : input.archived ? (current.archivedAt ?? new Date()) : null,
    };
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(wanted) as [keyof typeof wanted, unknown][]) {
      if (value === undefined) continue;
      const old = current[field];
      const same = old instanceof Date && value instanceof Date ? old.getTime() === value.getTime() : old === value;
      if (same) continue;
      before[field] = old;
      after[field] = value;
    }
    if (Object.keys(after).length === 0) return { ...current, changed: [] as string[] };
    const turnsBlindOff = after.blind === false;
    const blindOffReason = turnsBlindOff ? requireBlindOffReason(input.blindOffReason) : undefined;
    const updated = await tx.annotationQueue.update({ where: { id: input.queueId }, data: after, select: queueSettingsSelect });
    await recordAudit(tx, user.id, {
      action: "annotation_queue.updated",
      entityType: "AnnotationQueue",
      entityId: input.queueId,
      before: JSON.parse(JSON.stringify(before)) as AuditQueueSettings,
      after: { ...(JSON.parse(JSON.stringify(after)) as AuditQueueSettings), ...(blindOffReason ? { blindOffReason } : {}) },
    });
    return { ...updated, changed: Object.keys(after) };
  });
}
