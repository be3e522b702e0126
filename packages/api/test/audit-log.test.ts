import type { UserRole } from "@stepwiser/core";
import { AUDIT_ACTIONS, recordAudit, type AuditAction, type AuditEndpointSnapshot, type AuditEventOf } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AUDIT_ACTION_LABELS, appRouter, createCallerFactory, createUserWithPassword } from "../src";

const snapshot: AuditEndpointSnapshot = { name: "vllm", baseUrls: ["http://gpu-1:8000/v1"], model: "qwen", role: "policy", maxConcurrency: 8, apiKey: "[set]" };
const summary = { format: "prm800k", records: 3, written: 3, skipped: 0, replaced: 0, chunks: 12, humanLabels: 0, chunkLabels: 0 };

/** One event of every kind, as the code records it: the mapped type makes a missing action a type error. */
const EXAMPLES: { [A in AuditAction]: AuditEventOf<A> } = {
  "import.submitted": { action: "import.submitted", entityType: "Run", entityId: "run-1", after: { fileName: "a.jsonl", format: "prm800k", sizeBytes: 1024 } },
  "import.failed": { action: "import.failed", entityType: "Run", entityId: "run-1", after: { error: "line 3: bad json" } },
  "import.completed": { action: "import.completed", entityType: "Dataset", entityId: "ds-1", after: { runId: "run-1", createdDataset: true, ...summary } },
  "export.submitted": { action: "export.submitted", entityType: "Run", entityId: "run-2", after: { kind: "predictions", sourceRunId: "run-0" } },
  "run.submitted": { action: "run.submitted", entityType: "Run", entityId: "run-3", after: { kind: "annotate" } },
  "run.cancel_requested": { action: "run.cancel_requested", entityType: "Run", entityId: "run-3" },
  "run.resumed": { action: "run.resumed", entityType: "Run", entityId: "run-3" },
  "run.batch_imported": {
    action: "run.batch_imported",
    entityType: "Run",
    entityId: "run-3",
    after: { file: "out.jsonl", requests: 2, samples: 8, skipped: 1, promptTokens: 100, completionTokens: 400, cachedTokens: 10 },
  },
  "run.relabelled": { action: "run.relabelled", entityType: "Run", entityId: "run-3", after: { rules: ["abs_q(threshold=0.5)"] } },
  "run.updated": { action: "run.updated", entityType: "Run", entityId: "run-3", before: { name: "judge · sim-judge-strong · K=3", tags: [] }, after: { name: "strong judge", tags: ["baseline"] } },
  "user.created": { action: "user.created", entityType: "User", entityId: "user-1", after: { email: "a@example.test", role: "viewer" } },
  "user.role_changed": { action: "user.role_changed", entityType: "User", entityId: "user-1", before: { role: "viewer" }, after: { role: "researcher" } },
  "user.disabled": {
    action: "user.disabled",
    entityType: "User",
    entityId: "user-1",
    before: { disabledAt: null },
    after: { disabledAt: "2026-12-02T10:00:00.000Z", sessionsEnded: 2, apiTokensRevoked: 1 },
  },
  "user.enabled": { action: "user.enabled", entityType: "User", entityId: "user-1", before: { disabledAt: "2026-12-02T10:00:00.000Z" }, after: { disabledAt: null } },
  "user.password_reset": { action: "user.password_reset", entityType: "User", entityId: "user-1", after: { generated: true, sessionsEnded: 1 } },
  "user.sessions_ended": { action: "user.sessions_ended", entityType: "User", entityId: "user-1", after: { sessionsEnded: 3 } },
  "api_token.created": {
    action: "api_token.created",
    entityType: "ApiToken",
    entityId: "tok-1",
    after: { userId: "user-1", name: "ci", prefix: "sw_abc", scope: "read", expiresAt: "2027-03-02T10:00:00.000Z" },
  },
  "api_token.revoked": {
    action: "api_token.revoked",
    entityType: "ApiToken",
    entityId: "tok-1",
    before: { userId: "user-1", name: "ci", prefix: "sw_abc", revokedAt: null },
    after: { revokedAt: "2025-01-02T03:04:05.000Z" },
  },
  "endpoint.created": { action: "endpoint.created", entityType: "Endpoint", entityId: "ep-1", after: snapshot },
  "endpoint.updated": { action: "endpoint.updated", entityType: "Endpoint", entityId: "ep-1", before: snapshot, after: { ...snapshot, apiKey: "[none]" } },
  "endpoint.deleted": { action: "endpoint.deleted", entityType: "Endpoint", entityId: "ep-1", before: snapshot },
  "annotation_queue.created": {
    action: "annotation_queue.created",
    entityType: "AnnotationQueue",
    entityId: "q-1",
    after: {
      name: "audit 1",
      instructions: "",
      scheme: "rating",
      annotatorsPerItem: 2,
      leaseSeconds: 600,
      blind: true,
      datasetId: "ds-1",
      segmentationMethod: "newline",
      annotateRunId: "run-3",
      labelRule: { rule: "abs_q", paramsKey: "threshold=0.5" },
      judgeRunId: null,
      selection: { kind: "random", size: 10, seed: 1 },
      items: 10,
      members: [{ userId: "user-1", email: "a@example.test" }],
    },
  },
  "annotation_queue.updated": { action: "annotation_queue.updated", entityType: "AnnotationQueue", entityId: "q-1", before: { archivedAt: null }, after: { archivedAt: "2025-01-02T03:04:05.000Z" } },
  "annotation_queue.members_added": { action: "annotation_queue.members_added", entityType: "AnnotationQueue", entityId: "q-1", after: { members: [{ userId: "user-2", email: "b@example.test" }] } },
  "annotation_queue.member_removed": {
    action: "annotation_queue.member_removed",
    entityType: "AnnotationQueue",
    entityId: "q-1",
    before: { userId: "user-2", email: "b@example.test", addedAt: "2025-01-01T00:00:00.000Z" },
    after: { releasedLeases: 1 },
  },
  "human_work.deleted": {
    action: "human_work.deleted",
    entityType: "Dataset",
    entityId: "ds-1",
    before: {
      solutions: 1,
      humanLabels: 2,
      adjudications: 1,
      annotationItems: 1,
      assignments: 1,
      places: [{ kind: "queue", id: "q-1", name: "audit 1", humanLabels: 2, adjudications: 1, annotationItems: 1, assignments: 1 }],
      labelIds: ["hl-1", "hl-2"],
      adjudicationIds: ["hl-3"],
      itemIds: ["item-1"],
      assignmentIds: ["as-1"],
      solutionIds: ["t-1"],
    },
    after: { cause: "import.replace", runId: "run-1" },
  },
  "annotation_item.adjudicated": {
    action: "annotation_item.adjudicated",
    entityType: "AnnotationItem",
    entityId: "item-1",
    before: { adjudicatedAt: null, final: [{ chunkId: "c-0", chunkIndex: 0, status: "disputed", ratings: [{ authorId: "user-1", rating: 1 }, { authorId: "user-2", rating: -1 }] }] },
    after: { adjudicatedAt: "2025-01-02T03:04:05.000Z", final: [{ chunkId: "c-0", chunkIndex: 0, status: "adjudicated", rating: -1 }], notes: [{ chunkIndex: 0, note: "wrong sign" }] },
  },
  "demo.seeded": { action: "demo.seeded", entityType: "Database", entityId: "demo", after: { datasetId: "d-1", annotateRunId: "run-1", judgeRunIds: ["run-2", "run-3"] } },
  "demo.queue_seeded": { action: "demo.queue_seeded", entityType: "AnnotationQueue", entityId: "q-2", after: { items: 6, annotators: ["demo-annotator-a@stepwiser.local"], submissions: 4 } },
};

/** Events the system records with no actor. */
const SYSTEM_ACTIONS = new Set<AuditAction>(["run.batch_imported", "demo.seeded", "demo.queue_seeded"]);

describe("audit events: recorded through recordAudit, read back through audit.list", () => {
  let database: TestDatabase;
  const users = {} as Record<"admin" | "researcher", { id: string; email: string; name: string; role: UserRole }>;
  const as = (role: keyof typeof users) => createCallerFactory(appRouter)({ db: database.db, getQueue: () => Promise.reject(new Error("no queue here")), user: users[role] });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    for (const role of ["admin", "researcher"] as const) {
      users[role] = await createUserWithPassword(database.db, { email: `${role}@example.test`, name: role, role, password: "long-enough-password" });
    }
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("every action has a label and an example here, and the action filter offers exactly the union", async () => {
    expect(Object.keys(AUDIT_ACTION_LABELS).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(Object.keys(EXAMPLES).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    const options = await as("admin").audit.actions();
    expect(options.map((option) => option.action)).toEqual([...AUDIT_ACTIONS]);
    expect(options.every((option) => option.label.length > 0)).toBe(true);
  });

  it("stores each event's entity, actor and payload as given, in a transaction or the array form", async () => {
    const admin = users.admin.id;
    for (const action of AUDIT_ACTIONS) {
      const event = EXAMPLES[action];
      const actor = SYSTEM_ACTIONS.has(action) ? null : admin;
      if (action === "run.cancel_requested") await database.db.$transaction([recordAudit(database.db, actor, event)]);
      else await database.db.$transaction((tx) => recordAudit(tx, actor, event));
    }
    for (const action of AUDIT_ACTIONS) {
      const event = EXAMPLES[action];
      const { entries } = await as("admin").audit.list({ action, entityId: event.entityId });
      expect(entries).toHaveLength(1);
      const [entry] = entries;
      expect(entry).toMatchObject({ action, label: AUDIT_ACTION_LABELS[action], entityType: event.entityType, entityId: event.entityId });
      expect(entry!.actor?.id ?? null).toBe(SYSTEM_ACTIONS.has(action) ? null : admin);
      expect(entry!.before).toEqual("before" in event ? event.before : null);
      expect(entry!.after).toEqual("after" in event ? event.after : null);
    }
  });

  it("filters by entity, pages newest first, refuses actions outside the union and non-admins", async () => {
    const endpointRows = await as("admin").audit.list({ entityType: "Endpoint", entityId: "ep-1" });
    expect(endpointRows.entries.map((entry) => entry.action)).toEqual(["endpoint.deleted", "endpoint.updated", "endpoint.created"]);
    const first = await as("admin").audit.list({ limit: 2 });
    expect(first.entries).toHaveLength(2);
    const second = await as("admin").audit.list({ limit: 2, cursor: first.nextCursor! });
    expect(BigInt(second.entries[0]!.id)).toBeLessThan(BigInt(first.entries[1]!.id));
    await expect(as("admin").audit.list({ action: "run.exploded" as never })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as("researcher").audit.list({})).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
