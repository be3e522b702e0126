import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/**
 * RowsChange, the log that tells a stored compare result whether the rows it
 * was computed from changed: statement triggers append one row per statement
 * that changes a finished run's ChunkVotes, ChunkLabel, SolutionRunStat or
 * SolutionPrediction rows (nothing while the run runs), or a dataset's
 * Solution or Segmentation rows, also under session_replication_role =
 * replica and through cascades.
 */
const MIGRATION = "20261129004752_compare_versions";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string) => db.client.query(text);
  const changes = async (): Promise<Record<string, number | undefined>> =>
    Object.fromEntries((await q(`SELECT "scopeId", count(*)::int AS n FROM "RowsChange" GROUP BY 1 ORDER BY 1`)).rows.map((r: { scopeId: string; n: number }) => [r.scopeId, r.n]));

  it("logs one change per statement on a finished run's rows or a dataset's solutions, none on a running run's", async () => {
    await applyMigrations(db.url);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'one', 'sim-world'), ('d2', 'two', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Solution" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'g', 'a b'), ('t2', 'd1', 'p1', 'x2', 'g', 'c d')`);
    await q(`INSERT INTO "Segmentation" (id, "solutionId", method) VALUES ('s1', 't1', 'm'), ('s2', 't2', 'm')`);
    expect(await changes()).toEqual({ d1: 2 });
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c0', 's1', 0, 'a', 0, 1), ('c1', 's1', 1, 'b', 2, 3), ('c2', 's2', 0, 'c', 0, 1)`);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId", "finishedAt") VALUES ('j1', 'judge', 'running', '{}', 'd1', NULL), ('a1', 'annotate', 'running', '{}', 'd1', NULL)`);

    // While the runs run: their writes are not logged.
    await q(`INSERT INTO "JudgeSample" (id, "runId", "chunkId", "sampleIndex", "promptTemplateId", rationale, verdict) VALUES ('js0', 'j1', 'c0', 0, 't', 'r', 'Positive'), ('js1', 'j1', 'c1', 0, 't', 'r', 'Negative')`);
    await q(`INSERT INTO "ChunkLabel" (id, "runId", "chunkId", rule, "paramsKey", label) VALUES ('l0', 'a1', 'c0', 'abs_q', 'k', 'Positive'), ('l1', 'a1', 'c1', 'abs_q', 'k', 'Negative'), ('l2', 'a1', 'c2', 'abs_q', 'k', 'Positive')`);
    await q(`INSERT INTO "SolutionRunStat" ("runId", "solutionId", "datasetId", "chunkCount", "firstNegative", "negativeCount", "updatedAt") VALUES ('j1', 't1', 'd1', 2, 1, 1, now())`);
    expect(await changes()).toEqual({ d1: 2 });

    await q(`UPDATE "Run" SET status = 'completed', "finishedAt" = now() WHERE id IN ('j1', 'a1')`);
    // A sample written after the run finished changes its ChunkVotes (an insert and an update statement of the trigger's upsert).
    await q(`INSERT INTO "JudgeSample" (id, "runId", "chunkId", "sampleIndex", "promptTemplateId", rationale, verdict) VALUES ('js2', 'j1', 'c0', 1, 't', 'r', 'Negative')`);
    const afterSample = (await changes()).j1 ?? 0;
    expect(afterSample).toBeGreaterThanOrEqual(1);
    await q(`UPDATE "ChunkLabel" SET label = 'Negative' WHERE id = 'l0'`);
    await q(`UPDATE "SolutionRunStat" SET "firstNegative" = 0 WHERE "runId" = 'j1'`);
    expect(await changes()).toEqual({ d1: 2, j1: afterSample + 1, a1: 1 });
    // An update that matches no row changes nothing.
    await q(`UPDATE "ChunkLabel" SET label = 'Negative' WHERE id = 'none'`);
    expect((await changes()).a1).toBe(1);

    // A bulk loader's role: still logged.
    await q(`SET session_replication_role = replica`);
    await q(`INSERT INTO "ChunkLabel" (id, "runId", "chunkId", rule, "paramsKey", label) VALUES ('l3', 'a1', 'c0', 'rel_ratio', 'k', 'Positive')`);
    await q(`INSERT INTO "Solution" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t3', 'd2', 'p1', 'x3', 'g', 'e')`);
    await q(`SET session_replication_role = origin`);
    expect(await changes()).toMatchObject({ a1: 2, d2: 1 });

    // A solution deleted: its dataset once, and every finished run whose rows went with it (cascades).
    const before = await changes();
    await q(`DELETE FROM "Solution" WHERE id = 't1'`);
    const after = await changes();
    expect(after.d1).toBe((before.d1 ?? 0) + 1);
    expect(after.a1).toBeGreaterThan(before.a1 ?? 0);
    expect(after.j1).toBeGreaterThan(before.j1 ?? 0);
    // A segmentation replaced: its dataset, found through the solution.
    await q(`DELETE FROM "Segmentation" WHERE id = 's2'`);
    expect((await changes()).d1).toBe((after.d1 ?? 0) + 1);
    // A resumed run (finishedAt cleared) is not logged until it finishes again.
    const resumed = await changes();
    await q(`UPDATE "Run" SET status = 'running', "finishedAt" = NULL WHERE id = 'a1'`);
    await q(`INSERT INTO "SolutionRunStat" ("runId", "solutionId", "datasetId", "chunkCount", "firstNegative", "negativeCount", "updatedAt") VALUES ('a1', 't2', 'd1', 1, -1, 0, now())`);
    expect(await changes()).toEqual(resumed);
  });
});
