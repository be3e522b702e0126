import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { BEFORE_SOLUTION_NAMES, databaseBefore } from "./migration-database";

/**
 * ChunkVotes, the per-chunk tally of a run's judge samples, kept by triggers
 * on JudgeSample: the migration counts the samples stored before it, and
 * afterwards every insert, update and delete — in any order, across
 * statements and from concurrent transactions — leaves it equal to a recount
 * from the samples.
 */
const MIGRATION = "20261127000226_chunk_votes";

const RECOUNT = `
  SELECT "runId", "chunkId",
         count(*) FILTER (WHERE verdict = 'Positive')::int AS positive,
         count(*) FILTER (WHERE verdict = 'Negative')::int AS negative,
         count(*) FILTER (WHERE verdict = 'unparseable')::int AS unparseable,
         array_agg("sampleIndex" ORDER BY "sampleIndex") AS "sampleIndexes",
         array_agg(verdict::text ORDER BY "sampleIndex") AS verdicts,
         array_agg("promptTokens" ORDER BY "sampleIndex") AS "promptTokens",
         array_agg("completionTokens" ORDER BY "sampleIndex") AS "completionTokens"
    FROM "JudgeSample" GROUP BY 1, 2 ORDER BY 1, 2`;
const STORED = `
  SELECT "runId", "chunkId", positive, negative, unparseable, "sampleIndexes", verdicts::text[] AS verdicts, "promptTokens", "completionTokens"
    FROM "ChunkVotes" ORDER BY 1, 2`;

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string, values: unknown[] = []) => db.client.query(text, values);
  const sample = (run: string, chunk: string, index: number, verdict: string, tokens = index + 1) =>
    `('${run}-${chunk}-${index}-${randomBytes(3).toString("hex")}', '${run}', '${chunk}', ${index}, 'tpl', 'why', '${verdict}', ${10 * tokens}, ${tokens})`;
  const insert = (rows: string[]) =>
    `INSERT INTO "JudgeSample" (id, "runId", "chunkId", "sampleIndex", "promptTemplateId", rationale, verdict, "promptTokens", "completionTokens") VALUES ${rows.join(", ")}`;
  const expectTrue = async () => expect((await q(STORED)).rows).toEqual((await q(RECOUNT)).rows);


  it("counts the samples stored before it, then stays equal to a recount through inserts, updates, deletes and concurrent writers", async () => {
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'old', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Trajectory" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'sim-policy', 'a b c')`);
    await q(`INSERT INTO "Segmentation" (id, "trajectoryId", method) VALUES ('s1', 't1', 'self-segmented')`);
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c0', 's1', 0, 'a', 0, 1), ('c1', 's1', 1, 'b', 2, 3), ('c2', 's1', 2, 'c', 4, 5)`);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('j1', 'judge', 'completed', '{}', 'd1'), ('j2', 'judge', 'running', '{}', 'd1')`);
    await q(insert([sample("j1", "c0", 1, "Negative"), sample("j1", "c0", 0, "Positive"), sample("j1", "c1", 0, "unparseable"), sample("j2", "c0", 0, "Negative")]));

    await applyMigrations(db.url, { before: BEFORE_SOLUTION_NAMES });
    expect((await q(STORED)).rows).toEqual([
      { runId: "j1", chunkId: "c0", positive: 1, negative: 1, unparseable: 0, sampleIndexes: [0, 1], verdicts: ["Positive", "Negative"], promptTokens: [10, 20], completionTokens: [1, 2] },
      { runId: "j1", chunkId: "c1", positive: 0, negative: 0, unparseable: 1, sampleIndexes: [0], verdicts: ["unparseable"], promptTokens: [10], completionTokens: [1] },
      { runId: "j2", chunkId: "c0", positive: 0, negative: 1, unparseable: 0, sampleIndexes: [0], verdicts: ["Negative"], promptTokens: [10], completionTokens: [1] },
    ]);

    // Later samples of a chunk in another statement, out of order; a new chunk; a duplicate skipped by the key.
    await q(insert([sample("j1", "c0", 3, "Positive"), sample("j1", "c2", 0, "Positive"), sample("j1", "c0", 2, "unparseable")]));
    await expectTrue();
    await q(`${insert([sample("j1", "c0", 3, "Negative")])} ON CONFLICT ("runId", "chunkId", "sampleIndex") DO NOTHING`);
    await expectTrue();
    expect((await q(`SELECT verdicts::text[] AS v FROM "ChunkVotes" WHERE "runId" = 'j1' AND "chunkId" = 'c0'`)).rows[0].v).toEqual(["Positive", "Negative", "unparseable", "Positive"]);

    // A bulk loader that skips foreign-key checks (session_replication_role = replica) still has its samples counted.
    await q("BEGIN");
    await q("SET LOCAL session_replication_role = replica");
    await q(insert([sample("j1", "c2", 1, "Negative")]));
    await q("COMMIT");
    await expectTrue();
    expect((await q(`SELECT "sampleIndexes" FROM "ChunkVotes" WHERE "runId" = 'j1' AND "chunkId" = 'c2'`)).rows[0].sampleIndexes).toEqual([0, 1]);

    // A verdict changed, a sample moved to another chunk, samples deleted down to none on a chunk.
    await q(`UPDATE "JudgeSample" SET verdict = 'Positive', "completionTokens" = 99 WHERE "runId" = 'j1' AND "chunkId" = 'c0' AND "sampleIndex" = 1`);
    await expectTrue();
    await q(`UPDATE "JudgeSample" SET "chunkId" = 'c1', "sampleIndex" = 5 WHERE "runId" = 'j1' AND "chunkId" = 'c0' AND "sampleIndex" = 2`);
    await expectTrue();
    await q(`DELETE FROM "JudgeSample" WHERE "runId" = 'j1' AND "chunkId" = 'c2'`);
    await expectTrue();
    expect((await q(`SELECT count(*)::int AS n FROM "ChunkVotes" WHERE "chunkId" = 'c2'`)).rows[0].n).toBe(0);

    // Two transactions write samples of the same chunks at once; the second waits on the first's rows and adds to them.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await q("BEGIN");
      await other.query("BEGIN");
      await q(insert([sample("j2", "c1", 0, "Positive"), sample("j2", "c2", 1, "Negative")]));
      const waiting = other.query(insert([sample("j2", "c1", 1, "Negative"), sample("j2", "c2", 0, "Positive")]));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await q("COMMIT");
      await waiting;
      await other.query("COMMIT");
    } finally {
      await other.end();
    }
    await expectTrue();
    expect((await q(`SELECT "sampleIndexes", verdicts::text[] AS v FROM "ChunkVotes" WHERE "runId" = 'j2' AND "chunkId" = 'c2'`)).rows[0]).toEqual({ sampleIndexes: [0, 1], v: ["Positive", "Negative"] });

    // Deleting a run or a chunk takes its votes with it.
    await q(`DELETE FROM "Run" WHERE id = 'j2'`);
    await expectTrue();
    await q(`DELETE FROM "Chunk" WHERE id = 'c1'`);
    await expectTrue();
    expect((await q(STORED)).rows.map((r) => `${r.runId}/${r.chunkId}`)).toEqual(["j1/c0"]);
  });
});
