-- AlterTable: generated, so every writer keeps it current without knowing it exists
ALTER TABLE "Problem" ADD COLUMN     "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "text")) STORED;

-- AlterTable: generated, like the problem's
ALTER TABLE "Trajectory" ADD COLUMN     "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "text")) STORED;

-- CreateTable
CREATE TABLE "RunProgressSample" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "unitsDone" INTEGER NOT NULL,
    "unitsFailed" INTEGER NOT NULL,
    "requests" INTEGER NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "cachedTokens" BIGINT NOT NULL,

    CONSTRAINT "RunProgressSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TrajectoryRunStat" (
    "runId" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "datasetId" TEXT NOT NULL,
    "chunkCount" INTEGER NOT NULL,
    "qMin" DOUBLE PRECISION,
    "firstNegative" INTEGER NOT NULL,
    "negativeCount" INTEGER NOT NULL,
    "labelsDisagree" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TrajectoryRunStat_pkey" PRIMARY KEY ("runId","trajectoryId")
);

-- CreateIndex
CREATE INDEX "RunProgressSample_runId_at_idx" ON "RunProgressSample"("runId", "at");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_trajectoryId_idx" ON "TrajectoryRunStat"("trajectoryId");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_runId_qMin_idx" ON "TrajectoryRunStat"("runId", "qMin");

-- CreateIndex
CREATE INDEX "TrajectoryRunStat_runId_firstNegative_idx" ON "TrajectoryRunStat"("runId", "firstNegative");

-- CreateIndex
CREATE INDEX "Problem_searchVector_idx" ON "Problem" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_createdAt_id_idx" ON "Trajectory"("datasetId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Trajectory_searchVector_idx" ON "Trajectory" USING GIN ("searchVector");

-- AddForeignKey
ALTER TABLE "RunProgressSample" ADD CONSTRAINT "RunProgressSample_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrajectoryRunStat" ADD CONSTRAINT "TrajectoryRunStat_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrajectoryRunStat" ADD CONSTRAINT "TrajectoryRunStat_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;
