-- AlterTable
ALTER TABLE "Endpoint" ADD COLUMN     "protocols" TEXT[] DEFAULT ARRAY['stepwiser-chunk', 'processbench-critic']::TEXT[];

-- AlterTable
ALTER TABLE "JudgeSample" ADD COLUMN     "score" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "SolutionPrediction" ADD COLUMN     "samples" JSONB,
ADD COLUMN     "score" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "SelectionBracket" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "problemId" TEXT NOT NULL,
    "winnerTrajectoryId" TEXT,
    "bracket" JSONB NOT NULL,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SelectionBracket_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SelectionBracket_runId_problemId_key" ON "SelectionBracket"("runId", "problemId");

-- AddForeignKey
ALTER TABLE "SelectionBracket" ADD CONSTRAINT "SelectionBracket_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SelectionBracket" ADD CONSTRAINT "SelectionBracket_problemId_fkey" FOREIGN KEY ("problemId") REFERENCES "Problem"("id") ON DELETE CASCADE ON UPDATE CASCADE;
