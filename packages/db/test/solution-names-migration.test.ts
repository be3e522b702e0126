import { describe, expect, it } from "vitest";
import { createDb } from "../src/client";
import { applyMigrations } from "../src/migrations/migrate";
import { BEFORE_SOLUTION_NAMES, databaseBefore } from "./migration-database";

/**
 * The rename of "Trajectory" to "Solution": tables, "trajectoryId" columns, keys,
 * indexes, triggers and the trigger functions take the one name, and every row
 * stays as it was, read through the client under the new names.
 */
describe(`migration ${BEFORE_SOLUTION_NAMES}`, () => {
  const db = databaseBefore(BEFORE_SOLUTION_NAMES);
  const q = (text: string) => db.client.query(text);
  const names = async () =>
    (
      await q(`SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname ~* 'trajector'
               UNION ALL SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conname ~* 'trajector'
               UNION ALL SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name ~* 'trajector'
               UNION ALL SELECT tgname FROM pg_trigger WHERE tgname ~* 'trajector'
               UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND (proname ~* 'trajector' OR prosrc ~* 'trajector')`)
    ).rows.map((r: { name: string }) => r.name);

  it("keeps every solution and what refers to it, under the new names, with the triggers still logging", async () => {
    await q(`INSERT INTO "user" (id, name, email, role, "updatedAt") VALUES ('u1', 'Ann', 'ann@m.test', 'annotator', now())`);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'one', 'test')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Trajectory" (id, "datasetId", "problemId", "externalId", generator, text, "sourceFirstErrorIndex") VALUES ('t1', 'd1', 'p1', 'x1', 'g', 'step one', 1), ('t2', 'd1', 'p1', 'x2', 'g', 'other', -1)`);
    await q(`INSERT INTO "Segmentation" (id, "trajectoryId", method) VALUES ('s1', 't1', 'm')`);
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c1', 's1', 0, 'step', 0, 4)`);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId", "finishedAt") VALUES ('r1', 'judge', 'completed', '{"trajectoryIds": ["t1"]}', 'd1', now())`);
    await q(`INSERT INTO "TrajectoryRunStat" ("runId", "trajectoryId", "datasetId", "chunkCount", "firstNegative", "negativeCount", "updatedAt") VALUES ('r1', 't1', 'd1', 1, 0, 1, now())`);
    await q(`INSERT INTO "TrajectoryLabelConfidence" ("runId", "trajectoryId", rule, "paramsKey", "lowestConfidence") VALUES ('r1', 't1', 'abs_q', 'k', 0.5)`);
    await q(`INSERT INTO "SolutionPrediction" (id, "runId", "trajectoryId", "predictedFirstError") VALUES ('sp1', 'r1', 't1', 0)`);
    await q(`INSERT INTO "AnnotationQueue" (id, name, "datasetId", "segmentationMethod", selection) VALUES ('q1', 'audit', 'd1', 'm', '{}')`);
    await q(`INSERT INTO "AnnotationItem" (id, "queueId", "trajectoryId", "segmentationId", position) VALUES ('i1', 'q1', 't1', 's1', 0)`);
    await q(`INSERT INTO "HumanLabel" (id, "chunkId", "authorId", rating, source) VALUES ('h1', 'c1', 'u1', -1, 'manual')`);
    expect((await names()).length).toBeGreaterThan(0);

    expect(await applyMigrations(db.url)).toContain(BEFORE_SOLUTION_NAMES);
    expect(await names()).toEqual([]);

    const client = createDb(db.url);
    try {
      const solutions = await client.solution.findMany({ orderBy: { id: "asc" }, select: { id: true, externalId: true, sourceFirstErrorIndex: true, text: true } });
      expect(solutions).toEqual([
        { id: "t1", externalId: "x1", sourceFirstErrorIndex: 1, text: "step one" },
        { id: "t2", externalId: "x2", sourceFirstErrorIndex: -1, text: "other" },
      ]);
      const t1 = await client.solution.findUniqueOrThrow({
        where: { id: "t1" },
        select: {
          segmentations: { select: { id: true } },
          runStats: { select: { runId: true, firstNegative: true } },
          labelConfidences: { select: { lowestConfidence: true } },
          predictions: { select: { predictedFirstError: true } },
          annotationItems: { select: { id: true } },
        },
      });
      expect(t1).toEqual({
        segmentations: [{ id: "s1" }],
        runStats: [{ runId: "r1", firstNegative: 0 }],
        labelConfidences: [{ lowestConfidence: 0.5 }],
        predictions: [{ predictedFirstError: 0 }],
        annotationItems: [{ id: "i1" }],
      });
      // A stored config is data: it keeps the field name it was written with (the stored schemas read it).
      expect((await client.run.findUniqueOrThrow({ where: { id: "r1" } })).config).toEqual({ trajectoryIds: ["t1"] });
      expect(await client.humanLabel.count()).toBe(1);

      // The renamed triggers and the rewritten segmentation function still log changes of the dataset's solutions.
      const changes = async () => (await q(`SELECT count(*)::int AS n FROM "RowsChange" WHERE "scopeId" = 'd1'`)).rows[0].n as number;
      const before = await changes();
      await client.solution.create({ data: { id: "t3", datasetId: "d1", problemId: "p1", externalId: "x3", generator: "g", text: "third" } });
      await client.segmentation.create({ data: { id: "s3", solutionId: "t3", method: "m" } });
      expect(await changes()).toBe(before + 2);
      // Human work still restricts a delete that would reach it.
      await expect(client.solution.delete({ where: { id: "t1" } })).rejects.toThrow();
      await client.solution.delete({ where: { id: "t2" } });
      expect(await client.solution.count()).toBe(2);
    } finally {
      await client.$disconnect();
    }
  });
});
