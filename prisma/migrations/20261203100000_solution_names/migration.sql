-- A policy's written solution is called a solution everywhere: the table "Trajectory" becomes "Solution", its
-- two per-run tables and every "trajectoryId" column follow, and so do the names of their keys, indexes,
-- triggers and the trigger function. Renames only: no row is rewritten, and the tables are locked only
-- for the instant each rename takes.

ALTER TABLE "Trajectory" RENAME TO "Solution";
ALTER TABLE "TrajectoryRunStat" RENAME TO "SolutionRunStat";
ALTER TABLE "TrajectoryLabelConfidence" RENAME TO "SolutionLabelConfidence";

ALTER TABLE "Segmentation" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "SolutionPrediction" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "AnnotationItem" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "SolutionRunStat" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "SolutionLabelConfidence" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "DisagreementItem" RENAME COLUMN "trajectoryId" TO "solutionId";
ALTER TABLE "SelectionBracket" RENAME COLUMN "winnerTrajectoryId" TO "winnerSolutionId";

-- Primary and foreign keys.
ALTER TABLE "Solution" RENAME CONSTRAINT "Trajectory_pkey" TO "Solution_pkey";
ALTER TABLE "Solution" RENAME CONSTRAINT "Trajectory_datasetId_fkey" TO "Solution_datasetId_fkey";
ALTER TABLE "Solution" RENAME CONSTRAINT "Trajectory_problemId_fkey" TO "Solution_problemId_fkey";
ALTER TABLE "SolutionRunStat" RENAME CONSTRAINT "TrajectoryRunStat_pkey" TO "SolutionRunStat_pkey";
ALTER TABLE "SolutionRunStat" RENAME CONSTRAINT "TrajectoryRunStat_runId_fkey" TO "SolutionRunStat_runId_fkey";
ALTER TABLE "SolutionRunStat" RENAME CONSTRAINT "TrajectoryRunStat_trajectoryId_fkey" TO "SolutionRunStat_solutionId_fkey";
ALTER TABLE "SolutionLabelConfidence" RENAME CONSTRAINT "TrajectoryLabelConfidence_pkey" TO "SolutionLabelConfidence_pkey";
ALTER TABLE "SolutionLabelConfidence" RENAME CONSTRAINT "TrajectoryLabelConfidence_runId_fkey" TO "SolutionLabelConfidence_runId_fkey";
ALTER TABLE "SolutionLabelConfidence" RENAME CONSTRAINT "TrajectoryLabelConfidence_trajectoryId_fkey" TO "SolutionLabelConfidence_solutionId_fkey";
ALTER TABLE "Segmentation" RENAME CONSTRAINT "Segmentation_trajectoryId_fkey" TO "Segmentation_solutionId_fkey";
ALTER TABLE "SolutionPrediction" RENAME CONSTRAINT "SolutionPrediction_trajectoryId_fkey" TO "SolutionPrediction_solutionId_fkey";
ALTER TABLE "AnnotationItem" RENAME CONSTRAINT "AnnotationItem_trajectoryId_fkey" TO "AnnotationItem_solutionId_fkey";

-- Unique keys and indexes.
ALTER INDEX "Trajectory_datasetId_externalId_key" RENAME TO "Solution_datasetId_externalId_key";
ALTER INDEX "Trajectory_datasetId_subset_generator_idx" RENAME TO "Solution_datasetId_subset_generator_idx";
ALTER INDEX "Trajectory_datasetId_sourceFirstErrorIndex_createdAt_id_ext_idx" RENAME TO "Solution_datasetId_sourceFirstErrorIndex_createdAt_id_exter_idx";
ALTER INDEX "Trajectory_datasetId_generator_createdAt_id_idx" RENAME TO "Solution_datasetId_generator_createdAt_id_idx";
ALTER INDEX "Trajectory_datasetId_createdAt_id_idx" RENAME TO "Solution_datasetId_createdAt_id_idx";
ALTER INDEX "Trajectory_problemId_idx" RENAME TO "Solution_problemId_idx";
ALTER INDEX "Trajectory_datasetId_contentHash_idx" RENAME TO "Solution_datasetId_contentHash_idx";
ALTER INDEX "Trajectory_searchVector_idx" RENAME TO "Solution_searchVector_idx";
ALTER INDEX "TrajectoryRunStat_trajectoryId_idx" RENAME TO "SolutionRunStat_solutionId_idx";
ALTER INDEX "TrajectoryRunStat_runId_qMin_trajectoryId_idx" RENAME TO "SolutionRunStat_runId_qMin_solutionId_idx";
ALTER INDEX "TrajectoryRunStat_runId_firstNegative_trajectoryId_idx" RENAME TO "SolutionRunStat_runId_firstNegative_solutionId_idx";
ALTER INDEX "TrajectoryRunStat_runId_chunkCount_trajectoryId_idx" RENAME TO "SolutionRunStat_runId_chunkCount_solutionId_idx";
ALTER INDEX "TrajectoryLabelConfidence_runId_rule_paramsKey_lowestConfid_idx" RENAME TO "SolutionLabelConfidence_runId_rule_paramsKey_lowestConfiden_idx";
ALTER INDEX "TrajectoryLabelConfidence_trajectoryId_idx" RENAME TO "SolutionLabelConfidence_solutionId_idx";
ALTER INDEX "Segmentation_trajectoryId_method_key" RENAME TO "Segmentation_solutionId_method_key";
ALTER INDEX "SolutionPrediction_runId_trajectoryId_key" RENAME TO "SolutionPrediction_runId_solutionId_key";
ALTER INDEX "AnnotationItem_queueId_trajectoryId_key" RENAME TO "AnnotationItem_queueId_solutionId_key";

-- Named NOT NULL constraints (PostgreSQL 18 names them; earlier servers have none to rename).
DO $rename$
DECLARE c record;
BEGIN
  FOR c IN
    SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
    WHERE connamespace = 'public'::regnamespace AND contype = 'n' AND (conname LIKE 'Trajectory%' OR conname LIKE '%trajectoryId%')
  LOOP
    EXECUTE format('ALTER TABLE %s RENAME CONSTRAINT %I TO %I', c.tbl, c.conname,
      replace(replace(c.conname, 'Trajectory', 'Solution'), 'trajectoryId', 'solutionId'));
  END LOOP;
END
$rename$;

-- Triggers keep firing through a rename; their names and the functions that name the table follow.
ALTER TRIGGER "Trajectory_rows_change_insert" ON "Solution" RENAME TO "Solution_rows_change_insert";
ALTER TRIGGER "Trajectory_rows_change_update" ON "Solution" RENAME TO "Solution_rows_change_update";
ALTER TRIGGER "Trajectory_rows_change_delete" ON "Solution" RENAME TO "Solution_rows_change_delete";
ALTER TRIGGER "TrajectoryRunStat_rows_change_insert" ON "SolutionRunStat" RENAME TO "SolutionRunStat_rows_change_insert";
ALTER TRIGGER "TrajectoryRunStat_rows_change_update" ON "SolutionRunStat" RENAME TO "SolutionRunStat_rows_change_update";
ALTER TRIGGER "TrajectoryRunStat_rows_change_delete" ON "SolutionRunStat" RENAME TO "SolutionRunStat_rows_change_delete";
ALTER FUNCTION "rows_change_of_dataset_trajectories"() RENAME TO "rows_change_of_dataset_solutions";

-- A segmentation deleted with its solution is logged by the solution's own delete.
CREATE OR REPLACE FUNCTION "rows_change_of_dataset_segmentations"() RETURNS TRIGGER LANGUAGE plpgsql AS $change$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT t."datasetId" FROM new_rows s JOIN "Solution" t ON t."id" = s."solutionId";
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "RowsChange" ("scopeId")
    SELECT t."datasetId" FROM new_rows s JOIN "Solution" t ON t."id" = s."solutionId"
    UNION SELECT t."datasetId" FROM old_rows s JOIN "Solution" t ON t."id" = s."solutionId";
  ELSE
    INSERT INTO "RowsChange" ("scopeId") SELECT DISTINCT t."datasetId" FROM old_rows s JOIN "Solution" t ON t."id" = s."solutionId";
  END IF;
  RETURN NULL;
END
$change$;
