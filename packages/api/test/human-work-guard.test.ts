import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, runImport, storeFile, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "../src";
import { callerFor, createAnnotationWorld, createUser, memberAnnotator, rateAll, type AnnotationWorld, type Caller } from "./annotation-fixtures";

/** The tables of human work: no delete may remove or change their rows by a cascade. */
const HUMAN_WORK_TABLES = ["AnnotationAssignment", "AnnotationItem", "HumanLabel"];

/**
 * The delete paths the API and the jobs have besides imports: an endpoint, a
 * queue member, stored disagreement lists (recomputed), stored files (abandoned
 * uploads, an export's earlier output) and the runs that own them. None can
 * reach human work; these tests show it from the schema and from the paths.
 * The one path that can, a replace import, is driven through import.start.
 */
describe("human work through the API: other delete paths cannot reach it, a replace import needs deleteHumanLabels (real Postgres)", () => {
  let database: TestDatabase;
  let world: AnnotationWorld;
  let researcher: Caller;
  let admin: Caller;
  let queueId: string;
  let annotator: Caller;
  let jobQueue: JobQueue | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    world = await createAnnotationWorld(database.db, { solutions: 4, seed: 5 });
    researcher = callerFor(database.db, await createUser(database.db, "researcher", "Rhea"));
    admin = callerFor(database.db, await createUser(database.db, "admin", "Ada"));
    queueId = (
      await researcher.annotationQueue.createQueue({
        name: "guard queue",
        datasetId: world.datasetId,
        annotateRunId: world.annotateRunId,
        selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 3 },
        annotatorIds: [],
      })
    ).queueId;
    annotator = await memberAnnotator(database.db, researcher, "Nora", [queueId]);
    const view = (await annotator.annotationQueue.next({ queueId }))!;
    await annotator.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1) });
    // A second item leased and held, not submitted.
    await annotator.annotationQueue.next({ queueId });
  });
  afterAll(async () => {
    await jobQueue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  const humanWork = async () => ({
    labels: (await database.db.humanLabel.findMany({ orderBy: { id: "asc" } })).map((l) => [l.id, l.chunkId, l.itemId, l.assignmentId, l.rating]),
    items: (await database.db.annotationItem.findMany({ orderBy: { id: "asc" } })).map((i) => [i.id, i.solutionId]),
    assignments: (await database.db.annotationAssignment.findMany({ orderBy: { id: "asc" } })).map((a) => [a.id, a.status, a.submittedAt?.toISOString() ?? null]),
  });

  it("the fixture holds human work to lose", async () => {
    const work = await humanWork();
    expect(work.labels.length).toBeGreaterThan(0);
    expect(work.items).toHaveLength(3);
    expect(work.assignments).toHaveLength(2);
  });

  it("from the schema: no chain of cascading deletes, from any of these tables, reaches a human-work table", async () => {
    const edges = await database.db.$queryRaw<Array<{ child: string; parent: string; rule: string }>>`
      SELECT replace(conrelid::regclass::text, '"', '') AS child, replace(confrelid::regclass::text, '"', '') AS parent, confdeltype::text AS rule
        FROM pg_constraint WHERE contype = 'f'`;
    // What a delete of `table` removes (cascade, followed on) or changes (set null / set default).
    const reached = (table: string): Set<string> => {
      const seen = new Set<string>();
      const walk = (parent: string) => {
        for (const edge of edges.filter((e) => e.parent === parent && e.rule !== "r" && e.rule !== "a")) {
          if (seen.has(edge.child)) continue;
          seen.add(edge.child);
          if (edge.rule === "c") walk(edge.child);
        }
      };
      walk(table);
      return seen;
    };
    for (const table of ["Endpoint", "AnnotationQueueMember", "DisagreementList", "DisagreementItem", "StoredFile", "StoredFilePart", "Run", "user"]) {
      const hit = [...reached(table)].filter((t) => HUMAN_WORK_TABLES.includes(t));
      expect(hit, `a delete of ${table} reaches ${hit.join(", ")}`).toEqual([]);
    }
    // The walk does find what cascades: a dataset's delete reaches its solutions and their chunks (stopped at human work by RESTRICT).
    expect([...reached("Dataset")]).toEqual(expect.arrayContaining(["Solution", "Segmentation", "Chunk", "AnnotationQueue"]));
    expect([...reached("Dataset")].filter((t) => HUMAN_WORK_TABLES.includes(t))).toEqual([]);
    // Nothing references an endpoint: deleting one removes no other row at all.
    expect(edges.filter((e) => e.parent === "Endpoint")).toEqual([]);
  });

  it("endpoint delete: the endpoint goes, every human label, item and assignment stays", async () => {
    const before = await humanWork();
    const endpoint = await admin.endpoint.create({ name: "guard-judge", baseUrls: ["http://127.0.0.1:9/v1"], model: "m", role: "judge" });
    expect(await admin.endpoint.delete({ id: endpoint.id })).toMatchObject({ ok: true, id: endpoint.id });
    expect(await database.db.endpoint.count({ where: { id: endpoint.id } })).toBe(0);
    expect(await humanWork()).toEqual(before);
  });

  it("queue member removal: the membership goes and the held lease ends; the member's labels, items and assignments stay", async () => {
    const before = await humanWork();
    const userId = (await database.db.annotationQueueMember.findFirstOrThrow({ where: { queueId } })).userId;
    expect(await researcher.annotationQueue.removeMember({ queueId, userId })).toEqual({ removed: userId, releasedLeases: 1 });
    expect(await database.db.annotationQueueMember.count({ where: { queueId, userId } })).toBe(0);
    const after = await humanWork();
    expect(after.labels).toEqual(before.labels);
    expect(after.items).toEqual(before.items);
    // The lease ended (its expiry moved), the rows are the same rows with the same status and submission.
    expect(after.assignments).toEqual(before.assignments);
    expect(await database.db.humanLabel.count({ where: { queueId, authorId: userId } })).toBeGreaterThan(0);
  });

  it("import.start takes deleteHumanLabels: without it the replace import fails naming the work by place; with it the work is deleted and audited", async () => {
    jobQueue = await connectJobQueue(database.url);
    const queue = jobQueue;
    const user = await createUser(database.db, "researcher", "Ivo");
    const importer = appRouter.createCaller({ db: database.db, getQueue: async () => queue, user });
    const solutions = await database.db.solution.findMany({ where: { datasetId: world.datasetId, segmentations: { some: { method: "self-segmented" } } }, select: { externalId: true } });
    const lines = solutions.map((s) => JSON.stringify({ uid: s.externalId, q: "What is 2 + 3 * 4?", s: ["2 + 3 * 4", "= 14"] })).join("\n");
    const file = await storeFile(database.db, { fileName: "replace-world.jsonl", purpose: "upload" }, [new TextEncoder().encode(lines)]);
    const options = { format: "jsonl" as const, mapping: { problem: "q", steps: "s", id: "uid" }, datasetId: world.datasetId, duplicates: "replace" as const };

    await expect(importer.import.start({ fileId: file.id, options: { ...options, duplicates: "skip", deleteHumanLabels: true } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });

    const before = await humanWork();
    const refused = await importer.import.start({ fileId: file.id, options });
    await runImport(database.db, refused.runId);
    const failed = await importer.run.get({ id: refused.runId });
    expect(failed.status).toBe("failed");
    const labels = await database.db.humanLabel.count({ where: { queueId } });
    expect(failed.error).toContain(`would delete ${labels} human labels, 3 annotation items and 2 assignments in queue "guard queue" (id ${queueId})`);
    expect(failed.summary).toMatchObject({ humanWorkRefused: { annotationItems: 3, assignments: 2, humanLabels: labels } });
    expect(await humanWork()).toEqual(before);

    const done = await importer.import.start({ fileId: file.id, options: { ...options, deleteHumanLabels: true } });
    await runImport(database.db, done.runId);
    const completed = await importer.run.get({ id: done.runId });
    expect(completed.status, completed.error ?? "").toBe("completed");
    expect(await humanWork()).toEqual({ labels: [], items: [], assignments: [] });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "human_work.deleted", entityId: world.datasetId } });
    expect(audit.actorId).toBe(user.id);
    const ids = audit.before as { labelIds: string[]; itemIds: string[]; assignmentIds: string[] };
    expect([...ids.labelIds].sort()).toEqual(before.labels.map((l) => l[0]));
    expect([...ids.itemIds].sort()).toEqual(before.items.map((i) => i[0]));
    expect([...ids.assignmentIds].sort()).toEqual(before.assignments.map((a) => a[0]));
  });
});
