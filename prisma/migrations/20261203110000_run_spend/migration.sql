-- A run's models and cost as columns the runs list filters and sorts by, instead of paths into its config
-- snapshot. Both are written by the worker and the launch (core's `runCost`), and runs stored before this have
-- "spendRecordedAt" null and are filled in by the worker when it starts.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "costUsd" DOUBLE PRECISION,
ADD COLUMN     "spendRecordedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "RunModel" (
    "runId" TEXT NOT NULL,
    "role" "EndpointRole" NOT NULL,
    "model" TEXT NOT NULL,

    CONSTRAINT "RunModel_pkey" PRIMARY KEY ("runId","role")
);

-- CreateIndex
CREATE INDEX "RunModel_model_runId_idx" ON "RunModel"("model", "runId");

-- AddForeignKey
ALTER TABLE "RunModel" ADD CONSTRAINT "RunModel_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
