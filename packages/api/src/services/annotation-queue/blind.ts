import { InputError, limitedToMemberQueues, type UserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";

/** The longest reason kept for turning blind review off: a sentence or two. */
export const BLIND_OFF_REASON_MAX = 500;

/**
 * The reason given for a queue without blind review, trimmed; refused when
 * missing. Blind is the default: seeing the model's labels before rating
 * anchors annotators on them, so turning it off is a stated, audited choice.
 */
export function requireBlindOffReason(reason: string | undefined): string {
  const text = reason?.trim() ?? "";
  if (!text) {
    throw new InputError(
      "turning blind review off needs a reason (annotators would see the Monte-Carlo labels, Q-values and judge verdicts before they rate); give one, or keep blind: true",
      { field: "blindOffReason" },
    );
  }
  if (text.length > BLIND_OFF_REASON_MAX) {
    throw new InputError(`at most ${BLIND_OFF_REASON_MAX} characters (got ${text.length})`, { field: "blindOffReason" });
  }
  return text;
}

/** Who turned blind review off, when and why; `reason` is null for a queue made before reasons were required. */
export interface BlindOffNotice {
  byName: string | null;
  at: Date;
  reason: string | null;
}

/**
 * Why a queue that is not blind is so: the latest audit row that left it not
 * blind (its creation or a settings change), read from the audit log, where
 * the choice was written. Null for a blind queue. An annotator is not told who.
 */
export async function blindOffNotice(db: Db, queue: { id: string; blind: boolean; createdAt: Date }, viewerRole: UserRole): Promise<BlindOffNotice | null> {
  if (queue.blind) return null;
  const row = await db.auditLog.findFirst({
    where: { entityType: "AnnotationQueue", entityId: queue.id, action: { in: ["annotation_queue.created", "annotation_queue.updated"] }, after: { path: ["blind"], equals: false } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { createdAt: true, after: true, actor: { select: { name: true } } },
  });
  const after = (row?.after ?? {}) as { blindOffReason?: unknown };
  return {
    byName: limitedToMemberQueues(viewerRole) ? null : (row?.actor?.name ?? null),
    at: row?.createdAt ?? queue.createdAt,
    reason: typeof after.blindOffReason === "string" ? after.blindOffReason : null,
  };
}
