import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { BEFORE_SOLUTION_NAMES, databaseBefore } from "./migration-database";

/**
 * Human work (human labels, annotation items, assignments) is kept by
 * RESTRICT foreign keys instead of cascades: the migration only changes the
 * delete rule, so every stored row stays as it was, and from then on a delete
 * that would reach human work is refused by the database.
 */
const MIGRATION = "20261202100100_human_work_restrict";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string) => db.client.query(text);
  const snapshot = async () => ({
    labels: (await q(`SELECT id, "chunkId", "authorId", rating, source, "queueId", "itemId", "assignmentId" FROM "HumanLabel" ORDER BY id`)).rows,
    items: (await q(`SELECT id, "queueId", "trajectoryId", "segmentationId", position, "adjudicatedAt" FROM "AnnotationItem" ORDER BY id`)).rows,
    assignments: (await q(`SELECT id, "itemId", "annotatorId", status, "submittedAt" FROM "AnnotationAssignment" ORDER BY id`)).rows,
  });
  const deleteRules = async () =>
    Object.fromEntries(
      (
        await q(`SELECT conname, confdeltype::text AS rule FROM pg_constraint
                  WHERE contype = 'f' AND conrelid::regclass::text IN ('"HumanLabel"', '"AnnotationItem"', '"AnnotationAssignment"')`)
      ).rows.map((r: { conname: string; rule: string }) => [r.conname, r.rule]),
    );

  it("keeps every human label, item and assignment, and then restricts deletes that would reach them", async () => {
    await q(`INSERT INTO "user" (id, name, email, role, "updatedAt") VALUES ('u1', 'Ann', 'ann@m.test', 'annotator', now()), ('u2', 'Rob', 'rob@m.test', 'researcher', now())`);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'one', 'test')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Trajectory" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'g', 'a b'), ('t2', 'd1', 'p1', 'x2', 'g', 'c d'), ('t3', 'd1', 'p1', 'x3', 'g', 'e')`);
    await q(`INSERT INTO "Segmentation" (id, "trajectoryId", method) VALUES ('s1', 't1', 'm'), ('s2', 't2', 'm'), ('s3', 't3', 'm')`);
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES
               ('c1', 's1', 0, 'a', 0, 1), ('c2', 's1', 1, 'b', 2, 3), ('c3', 's2', 0, 'c', 0, 1), ('c4', 's3', 0, 'e', 0, 1)`);
    await q(`INSERT INTO "AnnotationQueue" (id, name, "datasetId", "segmentationMethod", selection) VALUES ('q1', 'audit', 'd1', 'm', '{}')`);
    await q(`INSERT INTO "AnnotationItem" (id, "queueId", "trajectoryId", "segmentationId", position, "adjudicatedAt") VALUES ('i1', 'q1', 't1', 's1', 0, now()), ('i2', 'q1', 't2', 's2', 1, NULL)`);
    await q(`INSERT INTO "AnnotationAssignment" (id, "itemId", "annotatorId", status, "expiresAt", "submittedAt") VALUES ('a1', 'i1', 'u1', 'submitted', now(), now()), ('a2', 'i2', 'u1', 'leased', now(), NULL)`);
    await q(`INSERT INTO "HumanLabel" (id, "chunkId", "authorId", rating, source, "queueId", "itemId", "assignmentId") VALUES
               ('h1', 'c1', 'u1', 1, 'annotation', 'q1', 'i1', 'a1'), ('h2', 'c2', 'u1', -1, 'annotation', 'q1', 'i1', 'a1'),
               ('h3', 'c2', 'u2', 1, 'adjudication', 'q1', 'i1', NULL), ('h4', 'c3', 'u2', 0, 'manual', NULL, NULL, NULL)`);
    const before = await snapshot();
    expect(before.labels).toHaveLength(4);
    // Before: the keys cascade.
    expect(await deleteRules()).toMatchObject({ HumanLabel_chunkId_fkey: "c", AnnotationItem_trajectoryId_fkey: "c", AnnotationAssignment_itemId_fkey: "c" });

    expect(await applyMigrations(db.url, { before: BEFORE_SOLUTION_NAMES })).toContain(MIGRATION);
    expect(await snapshot()).toEqual(before);
    const rules = await deleteRules();
    expect(Object.keys(rules)).toHaveLength(10);
    expect(new Set(Object.values(rules))).toEqual(new Set(["r"]));

    // A solution, queue or dataset holding human work can no longer be deleted; one without it still can.
    for (const statement of [`DELETE FROM "Trajectory" WHERE id = 't1'`, `DELETE FROM "Trajectory" WHERE id = 't2'`, `DELETE FROM "AnnotationQueue" WHERE id = 'q1'`, `DELETE FROM "Dataset" WHERE id = 'd1'`]) {
      await expect(q(statement)).rejects.toThrow(/violates RESTRICT setting of foreign key constraint/);
    }
    await q(`DELETE FROM "Trajectory" WHERE id = 't3'`);
    expect((await q(`SELECT count(*)::int AS n FROM "Chunk" WHERE id = 'c4'`)).rows[0].n).toBe(0);
    expect(await snapshot()).toEqual(before);
  });
});
