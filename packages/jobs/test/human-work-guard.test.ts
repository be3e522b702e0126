import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InputError, parseFieldMapping } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectJobQueue, runImport, storeFile, submitImport, type ImportOptionsInput, type JobQueue } from "../src";
import { deleteAbandonedUploads } from "../src/files/abandoned-uploads";
import { dataRowCounts } from "./helpers";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core/test/fixtures/imports");
const mapping = parseFieldMapping("problem=question,steps=steps,id=uid");
const line = (uid: string, steps: string[], file = "") => JSON.stringify({ uid, question: `What is ${uid}?`, steps, file });

/** Human work on a dataset's solutions, made the way the product stores it, with every row's id. */
interface HumanWorkFixture {
  queueId: string;
  itemIds: string[];
  assignmentIds: string[];
  /** Annotation labels written in the queue. */
  queueLabelIds: string[];
  adjudicationIds: string[];
  /** Manual labels outside any queue. */
  manualLabelIds: string[];
}

async function solutionChunks(db: Db, datasetId: string, externalId: string) {
  const t = await db.solution.findUniqueOrThrow({
    where: { datasetId_externalId: { datasetId, externalId } },
    include: { segmentations: { include: { chunks: { orderBy: { index: "asc" } } } } },
  });
  return { solutionId: t.id, segmentationId: t.segmentations[0]!.id, chunkIds: t.segmentations[0]!.chunks.map((c) => c.id) };
}

async function addUser(db: Db, role: "annotator" | "researcher", name: string) {
  return db.user.create({ data: { id: randomUUID(), name, email: `${name}-${randomUUID().slice(0, 6)}@guard.test`, role } });
}

/**
 * A queue named `queueName` over the solutions `inQueue` (one item each; one assignment submitted by an
 * annotator with a label per chunk; the first item adjudicated with one adjudication label), and one manual
 * label outside any queue on the first chunk of each of `manual`.
 */
async function addHumanWork(db: Db, datasetId: string, queueName: string, inQueue: string[], manual: string[]): Promise<HumanWorkFixture> {
  const annotator = await addUser(db, "annotator", "ann");
  const adjudicator = await addUser(db, "researcher", "adj");
  const queue = await db.annotationQueue.create({ data: { name: queueName, datasetId, segmentationMethod: "source-steps", selection: { kind: "test" } } });
  const fixture: HumanWorkFixture = { queueId: queue.id, itemIds: [], assignmentIds: [], queueLabelIds: [], adjudicationIds: [], manualLabelIds: [] };
  for (const [position, externalId] of inQueue.entries()) {
    const { solutionId, segmentationId, chunkIds } = await solutionChunks(db, datasetId, externalId);
    const item = await db.annotationItem.create({ data: { queueId: queue.id, solutionId, segmentationId, position, adjudicatedAt: position === 0 ? new Date() : null } });
    const assignment = await db.annotationAssignment.create({
      data: { itemId: item.id, annotatorId: annotator.id, status: "submitted", expiresAt: new Date(Date.now() + 60_000), submittedAt: new Date() },
    });
    fixture.itemIds.push(item.id);
    fixture.assignmentIds.push(assignment.id);
    for (const chunkId of chunkIds) {
      const label = await db.humanLabel.create({ data: { chunkId, authorId: annotator.id, rating: 1, source: "annotation", queueId: queue.id, itemId: item.id, assignmentId: assignment.id } });
      fixture.queueLabelIds.push(label.id);
    }
    if (position === 0) {
      const adjudication = await db.humanLabel.create({ data: { chunkId: chunkIds[0]!, authorId: adjudicator.id, rating: -1, source: "adjudication", queueId: queue.id, itemId: item.id } });
      fixture.adjudicationIds.push(adjudication.id);
    }
  }
  for (const externalId of manual) {
    const { chunkIds } = await solutionChunks(db, datasetId, externalId);
    const label = await db.humanLabel.create({ data: { chunkId: chunkIds[0]!, authorId: adjudicator.id, rating: 0, source: "manual" } });
    fixture.manualLabelIds.push(label.id);
  }
  return fixture;
}

const sorted = (ids: readonly string[]) => [...ids].sort();

describe("human work is never deleted silently (real Postgres)", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let db: Db;
  /** For the suite's summary line. */
  const tally = { refused: 0, flagged: 0, rawRefused: 0, labelsKept: 0 };

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    db = database.db;
    queue = await connectJobQueue(database.url);
  });
  afterAll(async () => {
    console.log(
      `human work: ${tally.refused} replace import(s) refused with counts (${tally.labelsKept} human labels kept), ${tally.flagged} deleted with deleteHumanLabels and audited by id, ${tally.rawRefused} raw deletes refused by the foreign keys`,
    );
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  async function importText(fileName: string, content: string, options: ImportOptionsInput, batchSize = 500) {
    const file = await storeFile(db, { fileName, purpose: "upload" }, [new TextEncoder().encode(content)]);
    const run = await submitImport(db, queue, { fileId: file.id, options });
    await runImport(db, run.id, { batchSize });
    return db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  /** A new dataset of solutions a, b, c and d (two steps each). */
  async function datasetABCD(name: string) {
    // The file's own name in each record: the same bytes twice would be recognised as imported already.
    const content = ["a", "b", "c", "d"].map((uid) => line(uid, [`${uid} one`, `${uid} two`], name)).join("\n");
    const run = await importText(`${name}.jsonl`, content, { format: "jsonl", mapping, datasetName: name });
    expect(run.status, run.error ?? "").toBe("completed");
    return run.datasetId!;
  }

  const solutionsOf = (datasetId: string) =>
    db.solution.findMany({ where: { datasetId }, orderBy: { externalId: "asc" }, select: { id: true, externalId: true, text: true, contentHash: true } });
  const existing = async (f: HumanWorkFixture) => ({
    items: sorted((await db.annotationItem.findMany({ where: { id: { in: f.itemIds } }, select: { id: true } })).map((r) => r.id)),
    assignments: sorted((await db.annotationAssignment.findMany({ where: { id: { in: f.assignmentIds } }, select: { id: true } })).map((r) => r.id)),
    labels: sorted(
      (await db.humanLabel.findMany({ where: { id: { in: [...f.queueLabelIds, ...f.adjudicationIds, ...f.manualLabelIds] } }, select: { id: true } })).map((r) => r.id),
    ),
  });

  // The file replaces b (in the queue, adjudicated) and c (in the queue, and a manual label), adds e; a and d are untouched.
  const replacing = [line("b", ["b one", "b changed"]), line("e", ["e one"]), line("c", ["c changed"])].join("\n");

  it("a replace import over solutions with human work is refused with the counts and places, and nothing stored changes", async () => {
    const datasetId = await datasetABCD("guarded");
    const work = await addHumanWork(db, datasetId, "audit-1", ["b", "c", "a"], ["c"]);
    const solutionsBefore = await solutionsOf(datasetId);
    const rowsBefore = await dataRowCounts(db);
    const workBefore = await existing(work);

    // One record per batch: b's batch finds the work, e's is not written, c's adds to the count.
    const run = await importText("replace.jsonl", replacing, { format: "jsonl", mapping, datasetId, duplicates: "replace" }, 1);
    expect(run.status).toBe("failed");
    // b and c: both chunks of each labelled in the queue, b adjudicated once; c's manual label is in the dataset, outside the queue.
    expect(run.error).toBe(
      `replace.jsonl: replacing 2 solutions would delete 4 human labels, 1 adjudication, 2 annotation items and 2 assignments in queue "audit-1" (id ${work.queueId}); ` +
        `1 human label in dataset "guarded" (id ${datasetId}); pass --delete-human-labels (deleteHumanLabels: true in the API) to delete them`,
    );
    expect(run.summary).toMatchObject({
      written: 0,
      replaced: 0,
      humanWorkRefused: {
        solutions: 2,
        humanLabels: 5,
        adjudications: 1,
        annotationItems: 2,
        assignments: 2,
        places: [
          { kind: "queue", id: work.queueId, name: "audit-1", humanLabels: 4, adjudications: 1, annotationItems: 2, assignments: 2 },
          { kind: "dataset", id: datasetId, name: "guarded", humanLabels: 1, adjudications: 0, annotationItems: 0, assignments: 0 },
        ],
      },
    });
    expect(await existing(work)).toEqual(workBefore);
    tally.refused += 1;
    tally.labelsKept += workBefore.labels.length;
    expect(await solutionsOf(datasetId)).toEqual(solutionsBefore);
    expect(await dataRowCounts(db)).toEqual(rowsBefore);
    const failed = await db.auditLog.findFirstOrThrow({ where: { action: "import.failed", entityId: run.id } });
    expect((failed.after as { error: string }).error).toBe(run.error);
    expect(await db.auditLog.count({ where: { action: "human_work.deleted" } })).toBe(0);
  });

  it("the same import with deleteHumanLabels proceeds, deletes exactly that work and audits every id", async () => {
    const datasetId = await datasetABCD("confirmed");
    const work = await addHumanWork(db, datasetId, "audit-2", ["b", "c", "a"], ["c", "d"]);
    const a = await solutionChunks(db, datasetId, "a");
    const labelsBefore = await db.humanLabel.count();
    const run = await importText("replace.jsonl", replacing, { format: "jsonl", mapping, datasetId, duplicates: "replace", deleteHumanLabels: true }, 1);
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.summary).toMatchObject({ records: 3, written: 3, replaced: 2, humanWorkDeleted: { solutions: 2, humanLabels: 5, adjudications: 1, annotationItems: 2, assignments: 2 } });

    const audit = await db.auditLog.findFirstOrThrow({ where: { action: "human_work.deleted", entityId: datasetId } });
    const before = audit.before as { labelIds: string[]; adjudicationIds: string[]; itemIds: string[]; assignmentIds: string[]; solutionIds: string[] };
    expect(audit.after).toEqual({ cause: "import.replace", runId: run.id });
    // b's and c's rows: the first two items (b, c), their assignments and labels, b's adjudication, c's manual label.
    const aItem = work.itemIds[2]!;
    const aLabels = await db.humanLabel.findMany({ where: { itemId: aItem }, select: { id: true } });
    const gone = {
      items: work.itemIds.slice(0, 2),
      assignments: work.assignmentIds.slice(0, 2),
      labels: [...work.queueLabelIds.filter((id) => !aLabels.some((l) => l.id === id)), work.manualLabelIds[0]!],
    };
    expect(sorted(before.itemIds)).toEqual(sorted(gone.items));
    expect(sorted(before.assignmentIds)).toEqual(sorted(gone.assignments));
    expect(sorted(before.adjudicationIds)).toEqual(sorted(work.adjudicationIds));
    expect(sorted(before.labelIds)).toEqual(sorted(gone.labels));
    expect(before.solutionIds).toHaveLength(2);
    tally.flagged += 1;

    // Exactly those rows are gone: a's item, assignment and labels and d's manual label stay.
    expect(await existing(work)).toEqual({
      items: [aItem],
      assignments: [work.assignmentIds[2]!],
      labels: sorted([...aLabels.map((l) => l.id), work.manualLabelIds[1]!]),
    });
    expect(await db.humanLabel.count()).toBe(labelsBefore - gone.labels.length - work.adjudicationIds.length);
    expect(aLabels).toHaveLength(a.chunkIds.length);
    const texts = Object.fromEntries((await solutionsOf(datasetId)).map((t) => [t.externalId, t.text]));
    expect(texts).toMatchObject({ a: "a one\n\na two", b: "b one\n\nb changed", c: "c changed", d: "d one\n\nd two", e: "e one" });
  });

  it("a replace import over solutions without human work needs no option, as before", async () => {
    const datasetId = await datasetABCD("plain");
    const run = await importText("replace-plain.jsonl", replacing, { format: "jsonl", mapping, datasetId, duplicates: "replace" });
    expect(run.status, run.error ?? "").toBe("completed");
    expect(run.summary).toMatchObject({ records: 3, written: 3, replaced: 2 });
    expect((run.summary as { humanWorkDeleted?: unknown }).humanWorkDeleted).toBeUndefined();
    expect((await solutionsOf(datasetId)).map((t) => t.text)).toEqual(["a one\n\na two", "b one\n\nb changed", "c changed", "d one\n\nd two", "e one"]);
    expect(await db.auditLog.count({ where: { action: "human_work.deleted", entityId: datasetId } })).toBe(0);
  });

  it("a record repeated later in the same file replaces this import's own copy and the labels the file gave it, without the option", async () => {
    const [first] = readFileSync(path.join(fixtures, "prm800k-phase2.jsonl"), "utf8").trim().split("\n");
    const twice = [first!, first!].join("\n");
    const run = await importText("prm800k-twice.jsonl", twice, { format: "prm800k", datasetName: "repeated", duplicates: "replace" }, 1);
    expect(run.status, run.error ?? "").toBe("completed");
    // Both copies were written, the first then replaced by the second.
    expect(run.summary).toMatchObject({ records: 2, written: 2, replaced: 1 });
    expect(await db.solution.count({ where: { datasetId: run.datasetId! } })).toBe(1);
    const labels = await db.humanLabel.count({ where: { chunk: { segmentation: { solution: { datasetId: run.datasetId! } } } } });
    expect(labels).toBeGreaterThan(0);
    expect(labels).toBe((run.summary as { humanLabels: number }).humanLabels / 2);
  });

  it("deleteHumanLabels applies only to replace imports", async () => {
    const file = await storeFile(db, { fileName: "x.jsonl", purpose: "upload" }, [new TextEncoder().encode(line("a", ["x"]))]);
    const refused = submitImport(db, queue, { fileId: file.id, options: { format: "jsonl", mapping, deleteHumanLabels: true } });
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toThrow('field "deleteHumanLabels": deleting human labels applies only when duplicates are replaced (duplicates "replace")');
  });

  it("the database itself refuses a raw delete of a solution, dataset, queue or item holding human work", async () => {
    const datasetId = await datasetABCD("raw");
    const work = await addHumanWork(db, datasetId, "audit-raw", ["b"], ["d"]);
    const b = await solutionChunks(db, datasetId, "b");
    const d = await solutionChunks(db, datasetId, "d");
    const before = await existing(work);
    const restricted = /violates RESTRICT setting of foreign key constraint/;
    for (const statement of [
      db.$executeRaw`DELETE FROM "Solution" WHERE id = ${b.solutionId}`,
      db.$executeRaw`DELETE FROM "Solution" WHERE id = ${d.solutionId}`,
      db.$executeRaw`DELETE FROM "Segmentation" WHERE id = ${d.segmentationId}`,
      db.$executeRaw`DELETE FROM "Chunk" WHERE id = ${d.chunkIds[0]!}`,
      db.$executeRaw`DELETE FROM "Dataset" WHERE id = ${datasetId}`,
      db.$executeRaw`DELETE FROM "AnnotationQueue" WHERE id = ${work.queueId}`,
      db.$executeRaw`DELETE FROM "AnnotationItem" WHERE id = ${work.itemIds[0]!}`,
      db.$executeRaw`DELETE FROM "AnnotationAssignment" WHERE id = ${work.assignmentIds[0]!}`,
    ]) {
      await expect(statement).rejects.toThrow(restricted);
      tally.rawRefused += 1;
    }
    // Prisma's own delete goes through the same keys.
    await expect(db.dataset.delete({ where: { id: datasetId } })).rejects.toThrow();
    expect(await existing(work)).toEqual(before);
    expect(await db.solution.count({ where: { datasetId } })).toBe(4);
    // A solution without human work is still deleted with everything under it.
    const a = await solutionChunks(db, datasetId, "a");
    expect(await db.$executeRaw`DELETE FROM "Solution" WHERE id = ${a.solutionId}`).toBe(1);
    expect(await db.chunk.count({ where: { id: { in: a.chunkIds } } })).toBe(0);
  });

  it("stored-file cleanup (abandoned uploads) deletes the files and nothing of the human work", async () => {
    const datasetId = await datasetABCD("cleanup");
    const work = await addHumanWork(db, datasetId, "audit-cleanup", ["a", "b"], ["c"]);
    const before = await existing(work);
    const labels = await db.humanLabel.count();
    await storeFile(db, { fileName: "left.jsonl", purpose: "upload" }, [new TextEncoder().encode("never imported")]);
    expect((await deleteAbandonedUploads(db, 0)).files).toBeGreaterThanOrEqual(1);
    expect(await existing(work)).toEqual(before);
    expect(await db.humanLabel.count()).toBe(labels);
  });

  it("every foreign key of a human-work table restricts deletes: no cascade or set-null reaches it from anywhere", async () => {
    const rows = await db.$queryRaw<Array<{ table: string; constraint: string; rule: string }>>`
      SELECT conrelid::regclass::text AS table, conname AS constraint, confdeltype::text AS rule
        FROM pg_constraint
       WHERE contype = 'f' AND conrelid::regclass::text IN ('"HumanLabel"', '"AnnotationItem"', '"AnnotationAssignment"')
       ORDER BY 1, 2`;
    expect(rows.map((r) => r.constraint)).toEqual([
      "AnnotationAssignment_annotatorId_fkey",
      "AnnotationAssignment_itemId_fkey",
      "AnnotationItem_queueId_fkey",
      "AnnotationItem_segmentationId_fkey",
      "AnnotationItem_solutionId_fkey",
      "HumanLabel_assignmentId_fkey",
      "HumanLabel_authorId_fkey",
      "HumanLabel_chunkId_fkey",
      "HumanLabel_itemId_fkey",
      "HumanLabel_queueId_fkey",
    ]);
    // 'r' = RESTRICT.
    expect(new Set(rows.map((r) => r.rule))).toEqual(new Set(["r"]));
  });
});
