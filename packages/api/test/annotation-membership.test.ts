import { can, type Access } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, authPool, createAuth, handleRestRequest, handleTrpcRequest, REST_OPERATIONS, type Auth, type ContextDeps, type SessionUser } from "../src";
import { assertQueueMember, type QueueRef } from "../src/services/annotation-queue/membership";
import { callerFor, createAnnotationWorld, createUser, rateAll, type AnnotationWorld, type Caller } from "./annotation-fixtures";

const BASE_URL = "http://localhost:3993";

type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { access?: Access } } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);

describe("annotation queue membership", () => {
  let database: TestDatabase;
  let pool: Pool;
  let auth: Auth;
  let deps: ContextDeps;
  let world: AnnotationWorld;
  let researcher: Caller;
  const tokens = new Map<string, string>();
  let counter = 0;
  let rawResponsesSearched = 0;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "m".repeat(32) }, pool);
    deps = { db: database.db, auth, getQueue: async () => Promise.reject(new Error("no job queue in membership tests")) };
    world = await createAnnotationWorld(database.db, { solutions: 6, seed: 11 });
    researcher = callerFor(database.db, await createUser(database.db, "researcher", "Rita"));
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  const annotator = async (name: string) => {
    const user = await createUser(database.db, "annotator", `${name}${++counter}`);
    const caller = callerFor(database.db, user);
    tokens.set(user.id, (await caller.token.create({ name: "script" })).token);
    return { user, caller };
  };
  const queueOf = async (settings: { items: number; annotatorIds?: string[]; blind?: boolean; annotatorsPerItem?: number }) =>
    (
      await researcher.annotationQueue.createQueue({
        name: `members ${++counter}`,
        datasetId: world.datasetId,
        blind: settings.blind,
        annotatorsPerItem: settings.annotatorsPerItem,
        annotateRunId: world.annotateRunId,
        judgeRunId: world.judgeRunId,
        selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: settings.items },
        annotatorIds: settings.annotatorIds ?? [],
      })
    ).queueId;

  /** One tRPC call over HTTP as a script makes it, answered as raw text: what actually leaves the server. */
  async function raw(user: SessionUser, path: string, type: "query" | "mutation", input: unknown): Promise<{ status: number; text: string }> {
    const headers = { authorization: `Bearer ${tokens.get(user.id)}`, "content-type": "application/json" };
    const body = JSON.stringify({ json: input });
    const request =
      type === "query"
        ? new Request(`${BASE_URL}/api/trpc/${path}?input=${encodeURIComponent(body)}`, { headers })
        : new Request(`${BASE_URL}/api/trpc/${path}`, { method: "POST", headers, body });
    const response = await handleTrpcRequest(request, deps);
    rawResponsesSearched++;
    return { status: response.status, text: await response.text() };
  }

  it("a non-member annotator gets NOT_FOUND for a queue id they know, never an item, and does not see it listed", async () => {
    const member = await annotator("Member");
    const outsider = await annotator("Outsider");
    const queueId = await queueOf({ items: 2, annotatorIds: [member.user.id] });
    const memberView = (await member.caller.annotationQueue.next({ queueId }))!;

    expect((await outsider.caller.annotationQueue.listQueues({})).map((q) => q.id)).not.toContain(queueId);
    expect((await member.caller.annotationQueue.listQueues({})).map((q) => q.id)).toEqual([queueId]);
    const notFound = { code: "NOT_FOUND", message: `annotation queue ${queueId} does not exist` };
    await expect(outsider.caller.annotationQueue.queue({ queueId })).rejects.toMatchObject(notFound);
    await expect(outsider.caller.annotationQueue.next({ queueId })).rejects.toMatchObject(notFound);
    await expect(outsider.caller.annotationQueue.undo({ queueId })).rejects.toMatchObject(notFound);
    // The same answer as for an id that does not exist: guessing tells nothing.
    await expect(outsider.caller.annotationQueue.queue({ queueId: "no-such-queue" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(outsider.caller.annotationQueue.assignment({ assignmentId: memberView.assignmentId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(outsider.caller.annotationQueue.skip({ assignmentId: memberView.assignmentId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(outsider.caller.annotationQueue.submit({ assignmentId: memberView.assignmentId, labels: rateAll(memberView.chunks, () => 1) })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await database.db.annotationAssignment.count({ where: { annotatorId: outsider.user.id } })).toBe(0);

    // Researchers and admins work any queue without being members.
    const admin = callerFor(database.db, await createUser(database.db, "admin", "Ada"));
    expect(await admin.annotationQueue.next({ queueId })).not.toBeNull();
  });

  it("the queue-member tier finds the queue of a queue, assignment or item id; outside the caller's queues each is its own NOT_FOUND", async () => {
    const member = await annotator("Tier");
    const mine = await queueOf({ items: 1, annotatorIds: [member.user.id] });
    const other = await queueOf({ items: 1 });
    const held = (await member.caller.annotationQueue.next({ queueId: mine }))!;
    const theirs = (await researcher.annotationQueue.next({ queueId: other }))!;
    const check = (ref: QueueRef, user: SessionUser = member.user) => assertQueueMember(database.db, user, ref);
    for (const ref of [{ queueId: mine }, { assignmentId: held.assignmentId }, { itemId: held.itemId }]) await expect(check(ref)).resolves.toBeUndefined();
    const notFound = (message: string) => ({ name: "NotFoundError", message });
    await expect(check({ queueId: other })).rejects.toMatchObject(notFound(`annotation queue ${other} does not exist`));
    await expect(check({ assignmentId: theirs.assignmentId })).rejects.toMatchObject(notFound(`assignment ${theirs.assignmentId} does not exist`));
    await expect(check({ itemId: theirs.itemId })).rejects.toMatchObject(notFound(`annotation item ${theirs.itemId} does not exist`));
    await expect(check({ itemId: "no-such-item" })).rejects.toMatchObject(notFound("annotation item no-such-item does not exist"));
    // Every queue is in a researcher's view: nothing is looked up, even for an id that does not exist.
    const ruth = await createUser(database.db, "researcher", `Ruth${++counter}`);
    await expect(check({ itemId: "no-such-item" }, ruth)).resolves.toBeUndefined();
  });

  it("members are added and removed by researchers, audited; a removed annotator loses the queue and their lease, their labels stay", async () => {
    const ann = await annotator("Ann");
    const queueId = await queueOf({ items: 3 });
    await expect(ann.caller.annotationQueue.next({ queueId })).rejects.toMatchObject({ code: "NOT_FOUND" });

    expect(await researcher.annotationQueue.addMembers({ queueId, userIds: [ann.user.id] })).toEqual({ added: [ann.user.id] });
    expect(await researcher.annotationQueue.addMembers({ queueId, userIds: [ann.user.id, ann.user.id] })).toEqual({ added: [] });
    const first = (await ann.caller.annotationQueue.next({ queueId }))!;
    await ann.caller.annotationQueue.submit({ assignmentId: first.assignmentId, labels: rateAll(first.chunks, () => 1) });
    const held = (await ann.caller.annotationQueue.next({ queueId }))!;

    expect(await researcher.annotationQueue.removeMember({ queueId, userId: ann.user.id })).toEqual({ removed: ann.user.id, releasedLeases: 1 });
    await expect(ann.caller.annotationQueue.next({ queueId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(ann.caller.annotationQueue.assignment({ assignmentId: held.assignmentId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(ann.caller.annotationQueue.submit({ assignmentId: held.assignmentId, labels: rateAll(held.chunks, () => 1) })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await database.db.humanLabel.count({ where: { queueId, authorId: ann.user.id } })).toBe(first.chunks.length);
    await expect(researcher.annotationQueue.removeMember({ queueId, userId: ann.user.id })).rejects.toMatchObject({ code: "NOT_FOUND" });

    const audit = await database.db.auditLog.findMany({ where: { entityId: queueId, action: { startsWith: "annotation_queue.member" } }, orderBy: { createdAt: "asc" } });
    expect(audit.map((row) => row.action)).toEqual(["annotation_queue.members_added", "annotation_queue.member_removed"]);
    expect(audit[0]!.after).toEqual({ members: [{ userId: ann.user.id, email: ann.user.email }] });
    expect(audit[1]!.before).toMatchObject({ userId: ann.user.id, email: ann.user.email });
    expect(audit[1]!.after).toEqual({ releasedLeases: 1 });

    // Only accounts that can annotate become members, and the bad one is named by its place.
    const viewer = await createUser(database.db, "viewer", "Vic");
    await expect(researcher.annotationQueue.addMembers({ queueId, userIds: [ann.user.id, viewer.id] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^userIds\.1: vic\d*@annotation\.test is a viewer and cannot annotate/),
    });
    await expect(researcher.annotationQueue.createQueue({ name: "x", datasetId: world.datasetId, selection: { kind: "filter", filter: {} }, annotatorIds: ["nobody"] })).rejects.toThrow(
      /annotatorIds\.0: user nobody does not exist/,
    );
    await expect(ann.caller.annotationQueue.addMembers({ queueId, userIds: [ann.user.id] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await researcher.annotationQueue.annotatorCandidates({})).map((u) => u.id)).toContain(ann.user.id);
  });

  it("an annotator cannot read another queue's items or any solution outside their queue through any procedure", async () => {
    const ann = await annotator("Probe");
    const mine = await queueOf({ items: 1, annotatorIds: [ann.user.id] });
    const other = await queueOf({ items: 6 });
    const colleague = callerFor(database.db, await createUser(database.db, "researcher", "Rex"));
    const theirs = (await colleague.annotationQueue.next({ queueId: other }))!;
    await colleague.annotationQueue.submit({ assignmentId: theirs.assignmentId, labels: rateAll(theirs.chunks, () => 1).map((l) => ({ ...l, note: "colleague-note-7f3a" })) });

    const outside = await database.db.solution.findMany({ where: { id: { in: world.solutions.slice(1).map((s) => s.id) } }, select: { id: true, text: true } });
    const otherItems = await database.db.annotationItem.findMany({ where: { queueId: other }, select: { id: true } });
    // Everything that would betray the other queue or a solution the annotator has no item of.
    // (Ids the probe itself sends may come back in an error message; those are not secrets.)
    const secrets = [...outside.map((t) => t.text), ...outside.slice(1).map((t) => t.id), ...otherItems.slice(1).map((i) => i.id), "colleague-note-7f3a"];
    const ids = {
      id: outside[0]!.id,
      solutionId: outside[0]!.id,
      queueId: other,
      itemId: otherItems[0]!.id,
      assignmentId: theirs.assignmentId,
      datasetId: world.datasetId,
      runId: world.annotateRunId,
      runIds: [world.annotateRunId, world.judgeRunId],
      segmentationId: world.solutions[1]!.segmentationId,
      chunkId: world.solutions[1]!.chunkIds[0],
    };
    let denied = 0;
    for (const [path, procedure] of procedures) {
      if (procedure._def.type === "subscription") continue;
      const access = procedure._def.meta?.access ?? "public";
      const response = await raw(ann.user, path, procedure._def.type, ids);
      for (const secret of secrets) expect(response.text.includes(secret), `${path} answered with ${secret.slice(0, 40)}`).toBe(false);
      if (access !== "public" && !can("annotator", access)) {
        expect(response.status, path).toBe(403);
        denied++;
      }
    }
    // Their own queue still works: what they may see is there.
    const own = await raw(ann.user, "annotationQueue.next", "mutation", { queueId: mine });
    expect(own.status).toBe(200);
    expect(own.text).toContain(world.solutions[0]!.id);
    expect(denied).toBeGreaterThan(40);
  });

  it("a blind queue's raw tRPC answers carry no model label, Q-value, verdict or other annotator's label before the annotator submits", async () => {
    const first = await annotator("BlindA");
    const second = await annotator("BlindB");
    const queueId = await queueOf({ items: 1, blind: true, annotatorsPerItem: 2, annotatorIds: [first.user.id, second.user.id] });
    const a = (await first.caller.annotationQueue.next({ queueId }))!;
    await first.caller.annotationQueue.submit({ assignmentId: a.assignmentId, labels: rateAll(a.chunks, () => -1).map((l) => ({ ...l, note: "first-annotator-note-91c2", flagged: true })) });

    const evidence = /"(mcLabel|qValue|judgeVotes|judgeVerdict)":(?!null)/;
    const claimed = await raw(second.user, "annotationQueue.next", "mutation", { queueId });
    expect(claimed.status).toBe(200);
    const view = JSON.parse(claimed.text) as { result: { data: { json: { assignmentId: string; itemId: string; chunks: Array<{ id: string; index: number }> } } } };
    const { assignmentId, itemId, chunks } = view.result.data.json;
    expect(itemId).toBe(a.itemId);
    // Every procedure the annotator role may call (capabilities.ts), called with every id they hold, answers without
    // a model signal; submit and skip, which end the lease, are called last and apart.
    const reachable = procedures.filter(([path, p]) => {
      const access = p._def.meta?.access ?? "public";
      return p._def.type !== "subscription" && (access === "public" || can("annotator", access)) && path !== "annotationQueue.submit" && path !== "annotationQueue.skip";
    });
    expect(reachable.map(([path]) => path)).toEqual(expect.arrayContaining(["annotationQueue.next", "annotationQueue.assignment", "annotationQueue.queue", "annotationQueue.listQueues", "annotationQueue.undo"]));
    const held = { queueId, assignmentId, itemId, id: itemId, solutionId: a.solution.id };
    const beforeSubmit = [claimed];
    for (const [path, p] of reachable) beforeSubmit.push(await raw(second.user, path, p._def.type as "query" | "mutation", held));
    // And every REST read the role may make, its {id} the queue's.
    for (const op of REST_OPERATIONS.filter((o) => o.method === "GET" && can("annotator", o.access))) {
      const restPath = op.path.replace(/\{id\}/g, queueId);
      const response = await handleRestRequest(new Request(`${BASE_URL}/api/v1${restPath}`, { headers: { authorization: `Bearer ${tokens.get(second.user.id)}` } }), deps, restPath);
      rawResponsesSearched++;
      beforeSubmit.push({ status: response.status, text: await response.text() });
    }
    for (const response of beforeSubmit) {
      expect(response.text).not.toMatch(evidence);
      expect(response.text).not.toMatch(/Positive|Negative|confidence|rationale|"q":|verdict"/);
      expect(response.text).not.toContain("first-annotator-note-91c2");
      expect(response.text).not.toContain(first.user.email);
    }
    for (const path of ["annotationQueue.itemHistory", "annotationQueue.agreement"]) {
      const denied = await raw(second.user, path, "query", { queueId, itemId });
      expect(denied.status, path).toBe(403);
      expect(denied.text).not.toContain("first-annotator-note-91c2");
    }

    const submitted = await raw(second.user, "annotationQueue.submit", "mutation", { assignmentId, labels: rateAll(chunks, () => 1) });
    expect(submitted.status).toBe(200);
    // After submitting, the model's evidence is revealed; another annotator's labels never are.
    expect(submitted.text).toMatch(evidence);
    expect(submitted.text).not.toContain("first-annotator-note-91c2");
  });

  afterAll(() => {
    process.stderr.write(`annotation membership: ${procedures.length} procedures probed as a non-member annotator, ${rawResponsesSearched} raw responses searched, 0 leaks\n`);
  });
});
