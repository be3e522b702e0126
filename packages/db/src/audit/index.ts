export {
  AUDIT_ACTIONS,
  AUDIT_ENTITY_TYPES,
  isAuditAction,
  type AuditAction,
  type AuditEndpointSnapshot,
  type AuditRunDescription,
  type AuditDemoRuns,
  type AuditEntityType,
  type AuditEvent,
  type AuditEventOf,
  type AuditFinalLabel,
  type AuditHumanWork,
  type AuditImportSummary,
  type AuditMember,
  type AuditQueueCreated,
  type AuditQueueSettings,
} from "./events";
export { recordAudit, type AuditWriter } from "./record";
