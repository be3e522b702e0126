-- Label confidence: each Monte-Carlo label carries the posterior probability that its rule, applied to the
-- true Q-values, gives it (null for labels stored before, until the run is relabelled, and for imported labels);
-- each annotated solution keeps its lowest confidence per rule for list filters and queue selection.

-- AlterTable
ALTER TABLE "ChunkLabel" ADD COLUMN     "confidence" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "TrajectoryLabelConfidence" (
    "runId" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "rule" "LabelRule" NOT NULL,
    "paramsKey" TEXT NOT NULL,
    "lowestConfidence" DOUBLE PRECISION,

    CONSTRAINT "TrajectoryLabelConfidence_pkey" PRIMARY KEY ("runId","trajectoryId","rule","paramsKey")
);

-- CreateIndex
CREATE INDEX "TrajectoryLabelConfidence_runId_rule_paramsKey_lowestConfid_idx" ON "TrajectoryLabelConfidence"("runId", "rule", "paramsKey", "lowestConfidence", "trajectoryId");

-- CreateIndex
CREATE INDEX "TrajectoryLabelConfidence_trajectoryId_idx" ON "TrajectoryLabelConfidence"("trajectoryId");

-- AddForeignKey
ALTER TABLE "TrajectoryLabelConfidence" ADD CONSTRAINT "TrajectoryLabelConfidence_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrajectoryLabelConfidence" ADD CONSTRAINT "TrajectoryLabelConfidence_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;
