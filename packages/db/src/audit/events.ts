import type { FinalHumanLabel, HumanWorkCounts, ImportReportCounts } from "@stepwiser/core";
import type { AnnotationScheme, EndpointRole, Role } from "../generated/prisma/client";
import type { HumanWorkIds } from "../human-work";

/**
 * Every event the code records in `AuditLog`, by action: the entity it is
 * about and the JSON it stores in `before` / `after`, exactly as written.
 * Rows are append-only, so a payload's shape never changes in place: a new
 * shape is a new action (or an optional field), and readers keep reading old
 * rows. Dates inside payloads are ISO strings (they are stored as JSON).
 */
interface AuditEventShapes {
  // ── runs ──
  /** An import run was queued for a stored file (a dataset file, or a batch output for `targetRunId`). */
  "import.submitted": {
    entityType: "Run";
    after: { fileName: string; format: string; sizeBytes: number } | { fileName: string; format: string; targetRunId: string };
  };
  /** The import's input was rejected (the run is failed, nothing was written). */
  "import.failed": { entityType: "Run"; after: { error: string } };
  /** An import finished: the summary of what it wrote, on the dataset it wrote into. */
  "import.completed": { entityType: "Dataset"; after: AuditImportSummary & { runId: string; createdDataset: boolean } };
  "export.submitted": { entityType: "Run"; after: { kind: string; sourceRunId: string } };
  "run.submitted": { entityType: "Run"; after: { kind: string; name?: string; tags?: string[] } };
  /** A researcher changed a run's name, notes or tags; only the changed fields are recorded. */
  "run.updated": { entityType: "Run"; before: AuditRunDescription; after: AuditRunDescription };
  "run.cancel_requested": { entityType: "Run" };
  "run.resumed": { entityType: "Run" };
  /** A `vllm run-batch` output file's answers were stored for an offline run. */
  "run.batch_imported": {
    entityType: "Run";
    after: { file: string; requests: number; samples: number; skipped: number; promptTokens: number; completionTokens: number; cachedTokens: number };
  };
  "run.relabelled": { entityType: "Run"; after: { rules: string[] } };
  // ── users and access ──
  "user.created": { entityType: "User"; after: { email: string; role: Role } };
  "user.role_changed": { entityType: "User"; before: { role: Role }; after: { role: Role } };
  /** An admin disabled an account: its sessions were deleted and its live API tokens revoked in the same transaction. */
  "user.disabled": { entityType: "User"; before: { disabledAt: null }; after: { disabledAt: string; sessionsEnded: number; apiTokensRevoked: number } };
  /** An admin enabled a disabled account again; the tokens revoked when it was disabled stay revoked. */
  "user.enabled": { entityType: "User"; before: { disabledAt: string }; after: { disabledAt: null } };
  /** An admin set a new password (typed or generated); the account's sessions were ended. The password is never recorded. */
  "user.password_reset": { entityType: "User"; after: { generated: boolean; sessionsEnded: number } };
  /** An admin ended every session of an account without disabling it. */
  "user.sessions_ended": { entityType: "User"; after: { sessionsEnded: number } };
  "api_token.created": { entityType: "ApiToken"; after: { userId: string; name: string; prefix: string; scope?: "read" | "read-write"; expiresAt?: string } };
  "api_token.revoked": { entityType: "ApiToken"; before: { userId: string; name: string; prefix: string; revokedAt: null }; after: { revokedAt: string } };
  // ── endpoints (the key is only ever "[set]" or "[none]") ──
  "endpoint.created": { entityType: "Endpoint"; after: AuditEndpointSnapshot };
  "endpoint.updated": { entityType: "Endpoint"; before: AuditEndpointSnapshot; after: AuditEndpointSnapshot };
  "endpoint.deleted": { entityType: "Endpoint"; before: AuditEndpointSnapshot };
  // ── annotation ──
  "annotation_queue.created": { entityType: "AnnotationQueue"; after: AuditQueueCreated };
  /** Only the fields that changed, before and after. */
  "annotation_queue.updated": { entityType: "AnnotationQueue"; before: AuditQueueSettings; after: AuditQueueSettings };
  "annotation_queue.members_added": { entityType: "AnnotationQueue"; after: { members: AuditMember[] } };
  "annotation_queue.member_removed": {
    entityType: "AnnotationQueue";
    before: { userId: string; email: string; addedAt: string };
    after: { releasedLeases: number };
  };
  /**
   * Human work deleted at an explicit request (`deleteHumanLabels`), on the dataset it was in: the counts by
   * place and the id of every row removed. `cause` names the path: "import.replace" is an import that replaced
   * solutions holding the work (`runId` the import run).
   */
  "human_work.deleted": { entityType: "Dataset"; before: AuditHumanWork; after: { cause: "import.replace"; runId: string } };
  "annotation_item.adjudicated": {
    entityType: "AnnotationItem";
    before: { adjudicatedAt: string | null; final: AuditFinalLabel[] };
    after: { adjudicatedAt: string; firstErrorIndex?: number | null; final: AuditFinalLabel[]; notes: { chunkIndex: number; note: string | null }[] };
  };
  // ── the database itself ──
  /**
   * The launcher queued the demo data once for this database (the marker it checks on later starts);
   * with the simulated-world runs it queued, which the demo annotation queue is made from once they finish.
   */
  "demo.seeded": { entityType: "Database"; after?: AuditDemoRuns };
  /** The demo annotation queue was made over the demo annotate run, with the demo annotators' labels in it. */
  "demo.queue_seeded": { entityType: "AnnotationQueue"; after: AuditDemoQueue };
}

/** The demo queue as the launcher made it: its simulated annotators (email, name, seeded error rate against the world's truth). */
export interface AuditDemoQueue {
  items: number;
  annotators: string[];
  submissions: number;
  /** Absent in markers written before the demo annotators were simulated with error rates. */
  simulatedAnnotators?: Array<{ email: string; name: string; errorRate: number }>;
}

/** The simulated-world demo: its dataset, annotate run and judge runs. */
export interface AuditDemoRuns {
  datasetId: string;
  annotateRunId: string;
  judgeRunIds: string[];
}

export interface AuditImportSummary {
  format: string;
  records: number;
  written: number;
  skipped: number;
  replaced: number;
  chunks: number;
  humanLabels: number;
  chunkLabels: number;
  /** Set when the identical file had been imported already and nothing was written. */
  duplicateOfRunId?: string;
  /** A replace import refused (failed, nothing written): the human work the replaced solutions hold. */
  humanWorkRefused?: HumanWorkCounts;
  /** A replace import run with `deleteHumanLabels`: the human work it deleted (the ids are in its `human_work.deleted` audit entry). */
  humanWorkDeleted?: HumanWorkCounts;
  /**
   * The file's records by what became of them (read, invalid, ignored, quirks), under the import's
   * policy for invalid records; the entries behind the invalid and ignored counts are ImportReportEntry
   * rows. Absent in imports stored before the report existed and in duplicates of an earlier import.
   */
  report?: ImportReportCounts;
}

/** Human work as `human_work.deleted` records it: the counts by place, and every removed row's id by kind. */
export type AuditHumanWork = HumanWorkCounts & HumanWorkIds & { solutionIds: string[] };

export interface AuditEndpointSnapshot {
  name: string;
  baseUrls: string[];
  model: string;
  role: EndpointRole;
  maxConcurrency: number;
  apiKey: "[set]" | "[none]";
  /** USD per 1M tokens; absent in entries written before endpoints had prices. */
  promptPricePerMTokens?: number | null;
  cachedPromptPricePerMTokens?: number | null;
  completionPricePerMTokens?: number | null;
  /** The judge protocols it declares; absent in entries written before endpoints declared protocols. */
  protocols?: string[];
  /** The server kind setting; absent in entries written before endpoints had one. */
  serverKind?: string;
}

export interface AuditMember {
  userId: string;
  email: string;
}

/** The changeable settings of a queue; `archivedAt` as an ISO string or null. */
export interface AuditQueueSettings {
  name?: string;
  instructions?: string;
  annotatorsPerItem?: number;
  leaseSeconds?: number;
  blind?: boolean;
  /** Why blind review was turned off: required with `blind: false` when it was on (in `after` only). */
  blindOffReason?: string;
  archivedAt?: string | null;
}

export interface AuditQueueCreated {
  name: string;
  instructions: string;
  scheme: AnnotationScheme;
  annotatorsPerItem: number;
  leaseSeconds: number;
  blind: boolean;
  /** Why the queue was made without blind review: required when `blind` is false. */
  blindOffReason?: string;
  datasetId: string;
  segmentationMethod: string;
  annotateRunId: string | null;
  /** The audited label rule as an object (the queue row stores it as a JSON string), or null. */
  labelRule: { rule: string; paramsKey: string } | null;
  judgeRunId: string | null;
  /** The queue's selection as chosen (its own schema lives with the API). */
  selection: { kind: string } & Record<string, unknown>;
  items: number;
  members: AuditMember[];
}

export type AuditFinalLabel = { chunkId: string; chunkIndex: number } & FinalHumanLabel;

export type AuditAction = keyof AuditEventShapes;

/** One audit event: its action, the entity it is about, and its payload. */
export type AuditEvent = { [A in AuditAction]: { action: A; entityId: string } & AuditEventShapes[A] }[AuditAction];

export type AuditEventOf<A extends AuditAction> = Extract<AuditEvent, { action: A }>;

/** The researcher-set fields of a run, as `run.updated` records them. */
export interface AuditRunDescription {
  name?: string | null;
  notes?: string;
  tags?: string[];
}

export type AuditEntityType = AuditEvent["entityType"];

/**
 * Every action, in the order readers list them. The checks below make the
 * compiler fail when an event is added to the union and not here (or the reverse).
 */
export const AUDIT_ACTIONS = [
  "import.submitted",
  "import.failed",
  "import.completed",
  "export.submitted",
  "run.submitted",
  "run.cancel_requested",
  "run.resumed",
  "run.batch_imported",
  "run.relabelled",
  "run.updated",
  "user.created",
  "user.role_changed",
  "user.disabled",
  "user.enabled",
  "user.password_reset",
  "user.sessions_ended",
  "api_token.created",
  "api_token.revoked",
  "endpoint.created",
  "endpoint.updated",
  "endpoint.deleted",
  "annotation_queue.created",
  "annotation_queue.updated",
  "annotation_queue.members_added",
  "annotation_queue.member_removed",
  "human_work.deleted",
  "annotation_item.adjudicated",
  "demo.seeded",
  "demo.queue_seeded",
] as const satisfies readonly AuditAction[];

/** The entity types events are recorded on, each with the actions recorded on it. */
export const AUDIT_ENTITY_TYPES = ["Run", "Dataset", "User", "ApiToken", "Endpoint", "AnnotationQueue", "AnnotationItem", "Database"] as const satisfies readonly AuditEntityType[];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const AUDIT_ACTIONS_MATCH_EVENTS: Same<(typeof AUDIT_ACTIONS)[number], AuditAction> = true;
export const AUDIT_ENTITY_TYPES_MATCH_EVENTS: Same<(typeof AUDIT_ENTITY_TYPES)[number], AuditEntityType> = true;

export function isAuditAction(action: string): action is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(action);
}
