-- DropIndex
DROP INDEX "Trajectory_datasetId_sourceFirstErrorIndex_createdAt_id_idx";

-- CreateTable
CREATE TABLE "ReadingGroupCounts" (
    "judgeRunId" TEXT NOT NULL,
    "labelsKey" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "groups" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReadingGroupCounts_pkey" PRIMARY KEY ("judgeRunId","labelsKey")
);

-- CreateTable
CREATE TABLE "GoldOutcomeCounts" (
    "runIds" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "outcomes" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GoldOutcomeCounts_pkey" PRIMARY KEY ("runIds")
);

-- CreateTable
CREATE TABLE "DisagreementList" (
    "runIds" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "list" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DisagreementList_pkey" PRIMARY KEY ("runIds")
);

-- CreateTable
CREATE TABLE "RowsChange" (
    "seq" BIGSERIAL NOT NULL,
    "scopeId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RowsChange_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "RowsChange_scopeId_idx" ON "RowsChange"("scopeId");

-- CreateIndex
CREATE INDEX "ChunkVotes_runId_chunkId_positive_negative_unparseable_idx" ON "ChunkVotes"("runId", "chunkId", "positive", "negative", "unparseable");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_sourceFirstErrorIndex_createdAt_id_ext_idx" ON "Trajectory"("datasetId", "sourceFirstErrorIndex", "createdAt", "id", "externalId", "subset");

-- AddForeignKey
ALTER TABLE "ReadingGroupCounts" ADD CONSTRAINT "ReadingGroupCounts_judgeRunId_fkey" FOREIGN KEY ("judgeRunId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- RowsChange: one row per statement that changed the rows of a finished run (ChunkVotes, ChunkLabel,
-- TrajectoryRunStat, SolutionPrediction) or the solutions of a dataset (Trajectory, Segmentation). A compare
-- result stored for finished runs names the count of their rows here: the count only grows, and it grows once a
-- change commits, whatever order concurrent writers commit in, so a stored result is current exactly while it
-- stays. Rows of a running run are not logged (nothing is stored for it; finishing sets a new finishedAt), so
-- the units' writes cost one primary-key probe of their run per statement, and no lock.
CREATE FUNCTION "rows_change_of_finished_runs"() RETURNS TRIGGER LANGUAGE plpgsql AS $change$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "RowsChange" ("scopeId")
    SELECT r."id" FROM "Run" r WHERE r."finishedAt" IS NOT NULL AND r."id" IN (SELECT "runId" FROM new_rows);
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "RowsChange" ("scopeId")
    SELECT r."id" FROM "Run" r WHERE r."finishedAt" IS NOT NULL AND r."id" IN (SELECT "runId" FROM new_rows UNION SELECT "runId" FROM old_rows);
  ELSE
    INSERT INTO "RowsChange" ("scopeId")
    SELECT r."id" FROM "Run" r WHERE r."finishedAt" IS NOT NULL AND r."id" IN (SELECT "runId" FROM old_rows);
  END IF;
  RETURN NULL;
END
$change$;

CREATE FUNCTION "rows_change_of_dataset_trajectories"() RETURNS TRIGGER LANGUAGE plpgsql AS $change$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT "datasetId" FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "RowsChange" ("scopeId") SELECT "datasetId" FROM new_rows UNION SELECT "datasetId" FROM old_rows;
  ELSE
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT "datasetId" FROM old_rows;
  END IF;
  RETURN NULL;
END
$change$;

-- A segmentation deleted with its solution is logged by the solution's own delete.
CREATE FUNCTION "rows_change_of_dataset_segmentations"() RETURNS TRIGGER LANGUAGE plpgsql AS $change$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT t."datasetId" FROM new_rows s JOIN "Trajectory" t ON t."id" = s."trajectoryId";
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "RowsChange" ("scopeId")
    SELECT t."datasetId" FROM new_rows s JOIN "Trajectory" t ON t."id" = s."trajectoryId"
    UNION SELECT t."datasetId" FROM old_rows s JOIN "Trajectory" t ON t."id" = s."trajectoryId";
  ELSE
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT t."datasetId" FROM old_rows s JOIN "Trajectory" t ON t."id" = s."trajectoryId";
  END IF;
  RETURN NULL;
END
$change$;

CREATE TRIGGER "ChunkVotes_rows_change_insert" AFTER INSERT ON "ChunkVotes" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "ChunkVotes_rows_change_update" AFTER UPDATE ON "ChunkVotes" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "ChunkVotes_rows_change_delete" AFTER DELETE ON "ChunkVotes" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "ChunkLabel_rows_change_insert" AFTER INSERT ON "ChunkLabel" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "ChunkLabel_rows_change_update" AFTER UPDATE ON "ChunkLabel" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "ChunkLabel_rows_change_delete" AFTER DELETE ON "ChunkLabel" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "TrajectoryRunStat_rows_change_insert" AFTER INSERT ON "TrajectoryRunStat" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "TrajectoryRunStat_rows_change_update" AFTER UPDATE ON "TrajectoryRunStat" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "TrajectoryRunStat_rows_change_delete" AFTER DELETE ON "TrajectoryRunStat" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "SolutionPrediction_rows_change_insert" AFTER INSERT ON "SolutionPrediction" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "SolutionPrediction_rows_change_update" AFTER UPDATE ON "SolutionPrediction" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "SolutionPrediction_rows_change_delete" AFTER DELETE ON "SolutionPrediction" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_finished_runs"();
CREATE TRIGGER "Trajectory_rows_change_insert" AFTER INSERT ON "Trajectory" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_trajectories"();
CREATE TRIGGER "Trajectory_rows_change_update" AFTER UPDATE ON "Trajectory" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_trajectories"();
CREATE TRIGGER "Trajectory_rows_change_delete" AFTER DELETE ON "Trajectory" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_trajectories"();
CREATE TRIGGER "Segmentation_rows_change_insert" AFTER INSERT ON "Segmentation" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_segmentations"();
CREATE TRIGGER "Segmentation_rows_change_update" AFTER UPDATE ON "Segmentation" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_segmentations"();
CREATE TRIGGER "Segmentation_rows_change_delete" AFTER DELETE ON "Segmentation" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rows_change_of_dataset_segmentations"();

-- Fired under session_replication_role = replica too, as the ChunkVotes triggers are: bulk loaders take that role.
ALTER TABLE "ChunkVotes" ENABLE ALWAYS TRIGGER "ChunkVotes_rows_change_insert";
ALTER TABLE "ChunkVotes" ENABLE ALWAYS TRIGGER "ChunkVotes_rows_change_update";
ALTER TABLE "ChunkVotes" ENABLE ALWAYS TRIGGER "ChunkVotes_rows_change_delete";
ALTER TABLE "ChunkLabel" ENABLE ALWAYS TRIGGER "ChunkLabel_rows_change_insert";
ALTER TABLE "ChunkLabel" ENABLE ALWAYS TRIGGER "ChunkLabel_rows_change_update";
ALTER TABLE "ChunkLabel" ENABLE ALWAYS TRIGGER "ChunkLabel_rows_change_delete";
ALTER TABLE "TrajectoryRunStat" ENABLE ALWAYS TRIGGER "TrajectoryRunStat_rows_change_insert";
ALTER TABLE "TrajectoryRunStat" ENABLE ALWAYS TRIGGER "TrajectoryRunStat_rows_change_update";
ALTER TABLE "TrajectoryRunStat" ENABLE ALWAYS TRIGGER "TrajectoryRunStat_rows_change_delete";
ALTER TABLE "SolutionPrediction" ENABLE ALWAYS TRIGGER "SolutionPrediction_rows_change_insert";
ALTER TABLE "SolutionPrediction" ENABLE ALWAYS TRIGGER "SolutionPrediction_rows_change_update";
ALTER TABLE "SolutionPrediction" ENABLE ALWAYS TRIGGER "SolutionPrediction_rows_change_delete";
ALTER TABLE "Trajectory" ENABLE ALWAYS TRIGGER "Trajectory_rows_change_insert";
ALTER TABLE "Trajectory" ENABLE ALWAYS TRIGGER "Trajectory_rows_change_update";
ALTER TABLE "Trajectory" ENABLE ALWAYS TRIGGER "Trajectory_rows_change_delete";
ALTER TABLE "Segmentation" ENABLE ALWAYS TRIGGER "Segmentation_rows_change_insert";
ALTER TABLE "Segmentation" ENABLE ALWAYS TRIGGER "Segmentation_rows_change_update";
ALTER TABLE "Segmentation" ENABLE ALWAYS TRIGGER "Segmentation_rows_change_delete";

-- Stored bootstrap replicates are now keyed by a digest the database computes over the gold rows (see
-- loadCommonGoldOutcomes); rows under the earlier key would never be read again, so they are dropped and
-- drawn anew on the next comparison.
DELETE FROM "BootstrapReplicates";

-- Stored Maj@K curves are now keyed by the version of the run's rows and its dataset's solutions (RowsChange);
-- curves under the earlier key would never be read again.
DELETE FROM "ScalingCurve";
