-- DropIndex
DROP INDEX "Trajectory_datasetId_generator_idx";

-- DropIndex
DROP INDEX "Trajectory_datasetId_sourceFirstErrorIndex_idx";

-- DropIndex
DROP INDEX "TrajectoryRunStat_runId_firstNegative_idx";

-- DropIndex
DROP INDEX "TrajectoryRunStat_runId_qMin_idx";

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_sourceFirstErrorIndex_createdAt_id_idx" ON "Trajectory"("datasetId", "sourceFirstErrorIndex", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_generator_createdAt_id_idx" ON "Trajectory"("datasetId", "generator", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Trajectory_problemId_idx" ON "Trajectory"("problemId");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_runId_qMin_trajectoryId_idx" ON "TrajectoryRunStat"("runId", "qMin", "trajectoryId");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_runId_firstNegative_trajectoryId_idx" ON "TrajectoryRunStat"("runId", "firstNegative", "trajectoryId");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_runId_chunkCount_trajectoryId_idx" ON "TrajectoryRunStat"("runId", "chunkCount", "trajectoryId");
