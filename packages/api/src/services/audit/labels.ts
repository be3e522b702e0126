import type { AuditAction } from "@stepwiser/db";

/**
 * What each audit action reads as in a list. A `Record` over the union: an
 * event added to `AuditEvent` without a label here fails the type check.
 */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  "import.submitted": "Import queued",
  "import.failed": "Import failed",
  "import.completed": "Import completed",
  "export.submitted": "Export queued",
  "run.submitted": "Run submitted",
  "run.cancel_requested": "Run cancel requested",
  "run.resumed": "Run resumed",
  "run.batch_imported": "Batch output imported into run",
  "run.relabelled": "Run relabelled",
  "run.updated": "Run name, notes or tags changed",
  "user.created": "User created",
  "user.role_changed": "User role changed",
  "user.disabled": "User disabled",
  "user.enabled": "User enabled",
  "user.password_reset": "User password reset",
  "user.sessions_ended": "User sessions ended",
  "api_token.created": "API token created",
  "api_token.revoked": "API token revoked",
  "endpoint.created": "Endpoint created",
  "endpoint.updated": "Endpoint updated",
  "endpoint.deleted": "Endpoint deleted",
  "annotation_queue.created": "Annotation queue created",
  "annotation_queue.updated": "Annotation queue settings changed",
  "annotation_queue.members_added": "Annotation queue members added",
  "annotation_queue.member_removed": "Annotation queue member removed",
  "human_work.deleted": "Human work deleted",
  "annotation_item.adjudicated": "Annotation item adjudicated",
  "demo.seeded": "Demo data queued",
  "demo.queue_seeded": "Demo annotation queue made",
};

/** The label of a stored action; an action no longer recorded (an old row) reads as itself. */
export function auditActionLabel(action: string): string {
  return (AUDIT_ACTION_LABELS as Record<string, string>)[action] ?? action;
}
