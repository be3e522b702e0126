-- DropIndex
DROP INDEX "ChunkLabel_runId_rule_paramsKey_idx";

-- CreateTable
CREATE TABLE "ChunkVotes" (
    "runId" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,
    "positive" INTEGER NOT NULL,
    "negative" INTEGER NOT NULL,
    "unparseable" INTEGER NOT NULL,
    "sampleIndexes" INTEGER[],
    "verdicts" "Verdict"[],
    "promptTokens" INTEGER[],
    "completionTokens" INTEGER[],

    CONSTRAINT "ChunkVotes_pkey" PRIMARY KEY ("runId","chunkId")
);

-- CreateIndex
CREATE INDEX "ChunkVotes_chunkId_idx" ON "ChunkVotes"("chunkId");

-- CreateIndex
CREATE INDEX "ChunkLabel_runId_rule_paramsKey_chunkId_label_idx" ON "ChunkLabel"("runId", "rule", "paramsKey", "chunkId", "label");

-- AddForeignKey
ALTER TABLE "ChunkVotes" ADD CONSTRAINT "ChunkVotes_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChunkVotes" ADD CONSTRAINT "ChunkVotes_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "Chunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Kept by the statements that change JudgeSample, one upsert or update per statement over the distinct pairs it
-- touched (transition tables, no per-row work). Both steps are increments: under READ COMMITTED a concurrent
-- writer of the same pair waits on the row and then applies its change to the committed version, so concurrent
-- writers never lose each other (a recount from the samples would, reading a snapshot taken before the wait).
-- The arrays stay in sampleIndex order, sampleIndexes saying which sample each entry is.
CREATE FUNCTION "chunk_votes_after_judge_samples"() RETURNS TRIGGER LANGUAGE plpgsql AS $after$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "ChunkVotes" v
       SET "positive" = v."positive" - g.pos,
           "negative" = v."negative" - g.neg,
           "unparseable" = v."unparseable" - g.unp,
           "verdicts" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes", v."verdicts") AS u(i, x) WHERE u.i <> ALL (g.idx) ORDER BY u.i),
           "promptTokens" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes", v."promptTokens") AS u(i, x) WHERE u.i <> ALL (g.idx) ORDER BY u.i),
           "completionTokens" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes", v."completionTokens") AS u(i, x) WHERE u.i <> ALL (g.idx) ORDER BY u.i),
           "sampleIndexes" = ARRAY(SELECT u.i FROM unnest(v."sampleIndexes") AS u(i) WHERE u.i <> ALL (g.idx) ORDER BY u.i)
      FROM (SELECT "runId", "chunkId",
                   count(*) FILTER (WHERE "verdict" = 'Positive')::int AS pos,
                   count(*) FILTER (WHERE "verdict" = 'Negative')::int AS neg,
                   count(*) FILTER (WHERE "verdict" = 'unparseable')::int AS unp,
                   array_agg("sampleIndex") AS idx
              FROM old_rows GROUP BY "runId", "chunkId") g
     WHERE v."runId" = g."runId" AND v."chunkId" = g."chunkId";
    DELETE FROM "ChunkVotes" v
     USING (SELECT DISTINCT "runId", "chunkId" FROM old_rows) g
     WHERE v."runId" = g."runId" AND v."chunkId" = g."chunkId" AND cardinality(v."sampleIndexes") = 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "ChunkVotes" AS v ("runId", "chunkId", "positive", "negative", "unparseable", "sampleIndexes", "verdicts", "promptTokens", "completionTokens")
    SELECT "runId", "chunkId",
           count(*) FILTER (WHERE "verdict" = 'Positive'),
           count(*) FILTER (WHERE "verdict" = 'Negative'),
           count(*) FILTER (WHERE "verdict" = 'unparseable'),
           array_agg("sampleIndex" ORDER BY "sampleIndex"),
           array_agg("verdict" ORDER BY "sampleIndex"),
           array_agg("promptTokens" ORDER BY "sampleIndex"),
           array_agg("completionTokens" ORDER BY "sampleIndex")
      FROM new_rows
     GROUP BY "runId", "chunkId"
    ON CONFLICT ("runId", "chunkId") DO UPDATE
       SET "positive" = v."positive" + EXCLUDED."positive",
           "negative" = v."negative" + EXCLUDED."negative",
           "unparseable" = v."unparseable" + EXCLUDED."unparseable",
           "verdicts" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes" || EXCLUDED."sampleIndexes", v."verdicts" || EXCLUDED."verdicts") AS u(i, x) ORDER BY u.i),
           "promptTokens" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes" || EXCLUDED."sampleIndexes", v."promptTokens" || EXCLUDED."promptTokens") AS u(i, x) ORDER BY u.i),
           "completionTokens" = ARRAY(SELECT u.x FROM unnest(v."sampleIndexes" || EXCLUDED."sampleIndexes", v."completionTokens" || EXCLUDED."completionTokens") AS u(i, x) ORDER BY u.i),
           "sampleIndexes" = ARRAY(SELECT u.i FROM unnest(v."sampleIndexes" || EXCLUDED."sampleIndexes") AS u(i) ORDER BY u.i);
  END IF;
  RETURN NULL;
END
$after$;

CREATE TRIGGER "JudgeSample_chunk_votes_insert" AFTER INSERT ON "JudgeSample" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "chunk_votes_after_judge_samples"();
CREATE TRIGGER "JudgeSample_chunk_votes_update" AFTER UPDATE ON "JudgeSample" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "chunk_votes_after_judge_samples"();
CREATE TRIGGER "JudgeSample_chunk_votes_delete" AFTER DELETE ON "JudgeSample" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "chunk_votes_after_judge_samples"();

-- Fired under session_replication_role = replica too: bulk loaders take that role to skip foreign-key checks, and
-- their samples must still be counted. (A logical-replication subscriber that also receives ChunkVotes rows would
-- set these back to ENABLE TRIGGER, the default, so as not to count them twice.)
ALTER TABLE "JudgeSample" ENABLE ALWAYS TRIGGER "JudgeSample_chunk_votes_insert";
ALTER TABLE "JudgeSample" ENABLE ALWAYS TRIGGER "JudgeSample_chunk_votes_update";
ALTER TABLE "JudgeSample" ENABLE ALWAYS TRIGGER "JudgeSample_chunk_votes_delete";

-- The samples stored before: every run's votes on every chunk it judged.
INSERT INTO "ChunkVotes" ("runId", "chunkId", "positive", "negative", "unparseable", "sampleIndexes", "verdicts", "promptTokens", "completionTokens")
SELECT "runId", "chunkId",
       count(*) FILTER (WHERE "verdict" = 'Positive'),
       count(*) FILTER (WHERE "verdict" = 'Negative'),
       count(*) FILTER (WHERE "verdict" = 'unparseable'),
       array_agg("sampleIndex" ORDER BY "sampleIndex"),
       array_agg("verdict" ORDER BY "sampleIndex"),
       array_agg("promptTokens" ORDER BY "sampleIndex"),
       array_agg("completionTokens" ORDER BY "sampleIndex")
  FROM "JudgeSample"
 GROUP BY "runId", "chunkId"
ON CONFLICT ("runId", "chunkId") DO NOTHING;
