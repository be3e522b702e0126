-- CreateEnum
CREATE TYPE "RunUnitStatus" AS ENUM ('pending', 'done', 'failed');

-- AlterTable
ALTER TABLE "Problem" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "cancelRequestedAt" TIMESTAMP(3),
ADD COLUMN     "plannedAt" TIMESTAMP(3),
ADD COLUMN     "summary" JSONB;

-- AlterTable
ALTER TABLE "Trajectory" ADD COLUMN     "metadata" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "runId" TEXT;

-- CreateTable
CREATE TABLE "RunUnit" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "status" "RunUnitStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunUnit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RunUnit_runId_status_position_idx" ON "RunUnit"("runId", "status", "position");

-- CreateIndex
CREATE UNIQUE INDEX "RunUnit_runId_key_key" ON "RunUnit"("runId", "key");

-- AddForeignKey
ALTER TABLE "RunUnit" ADD CONSTRAINT "RunUnit_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
