import { describe, expect, it } from "vitest";
import { applyMigrations, applyStorageSettings } from "../src/migrations/migrate";
import { BEFORE_SOLUTION_NAMES, databaseBefore } from "./migration-database";

/**
 * The migration that keys rollouts by where they were drawn and lets a run
 * keep them without text, applied to a database as the previous release left
 * it: stored rollouts keep every field, the surrogate id and its second index
 * are gone, the key still refuses a duplicate, and the text column is lz4
 * where the server was built with it.
 */
const MIGRATION = "20261126205723_rollout_storage";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);

  it("keeps stored rollouts, drops the surrogate id and its index, refuses duplicates by key, allows answer-only rows and compresses texts (lz4 where the server has it)", async () => {
    const q = (text: string, values: unknown[] = []) => db.client.query(text, values);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'old', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Trajectory" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'sim-policy', 'a b')`);
    await q(`INSERT INTO "Segmentation" (id, "trajectoryId", method) VALUES ('s1', 't1', 'self-segmented')`);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('r1', 'annotate', 'completed', '{}', 'd1')`);
    const long = "Let x = 3. Then 2x + 1 = 7, so the answer is \\boxed{7}. ".repeat(200);
    await q(
      `INSERT INTO "Rollout" (id, "runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct, "completionTokens")
       VALUES ('o1', 'r1', 's1', 0, 0, 11, 'so \\boxed{7}', '7', true, 5), ('o2', 'r1', 's1', 0, 1, 12, $1, '7', true, 4000), ('o3', 'r1', 's1', 1, 0, 13, 'no answer', NULL, false, 3)`,
      [long],
    );

    await applyMigrations(db.url, { before: BEFORE_SOLUTION_NAMES });

    const rows = await q(`SELECT "runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct, "completionTokens" FROM "Rollout" ORDER BY "prefixLength", "sampleIndex"`);
    expect(rows.rows).toEqual([
      { runId: "r1", segmentationId: "s1", prefixLength: 0, sampleIndex: 0, seed: 11, text: "so \\boxed{7}", extractedAnswer: "7", correct: true, completionTokens: 5 },
      { runId: "r1", segmentationId: "s1", prefixLength: 0, sampleIndex: 1, seed: 12, text: long, extractedAnswer: "7", correct: true, completionTokens: 4000 },
      { runId: "r1", segmentationId: "s1", prefixLength: 1, sampleIndex: 0, seed: 13, text: "no answer", extractedAnswer: null, correct: false, completionTokens: 3 },
    ]);
    const columns = await q(`SELECT column_name FROM information_schema.columns WHERE table_name = 'Rollout' ORDER BY column_name`);
    expect(columns.rows.map((r) => r.column_name)).not.toContain("id");
    const indexes = await q(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'Rollout'`);
    expect(indexes.rows).toHaveLength(1);
    expect(indexes.rows[0].indexdef).toContain('("runId", "segmentationId", "prefixLength", "sampleIndex")');
    await expect(q(`INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, correct) VALUES ('r1', 's1', 0, 0, 1, 'again', false)`)).rejects.toThrow(/Rollout_pkey/);
    await q(`INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct) VALUES ('r1', 's1', 1, 1, 14, NULL, '8', false)`);

    // lz4 where the server has it; the embedded server is built without it and keeps pglz.
    await q(`CREATE TEMP TABLE probe (x text)`);
    const hasLz4 = await q(`ALTER TABLE probe ALTER COLUMN x SET COMPRESSION lz4`).then(
      () => true,
      (error: { code?: string }) => (error.code === "0A000" ? false : Promise.reject(error)),
    );
    const compression = await q(`SELECT attcompression::text AS c FROM pg_attribute WHERE attrelid = '"Rollout"'::regclass AND attname = 'text'`);
    expect(compression.rows[0].c).toBe(hasLz4 ? "l" : "");
    expect(await applyStorageSettings(db.url)).toEqual({ rolloutTextCompression: hasLz4 ? "lz4" : "default" });
    // A long text written now is stored compressed (the 200 repeats compress far below a quarter).
    await q(`INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, correct) VALUES ('r1', 's1', 2, 0, 15, $1, true)`, [long]);
    const method = await q(`SELECT pg_column_compression(text) AS m, pg_column_size(text) AS size, octet_length(text) AS length FROM "Rollout" WHERE "prefixLength" = 2`);
    expect(method.rows[0].m).toBe(hasLz4 ? "lz4" : "pglz");
    expect(method.rows[0].size).toBeLessThan(method.rows[0].length / 4);
  });
});
