-- CreateTable
CREATE TABLE "SolutionPrediction" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "predictedFirstError" INTEGER,
    "output" TEXT,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SolutionPrediction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SolutionPrediction_runId_trajectoryId_key" ON "SolutionPrediction"("runId", "trajectoryId");

-- AddForeignKey
ALTER TABLE "SolutionPrediction" ADD CONSTRAINT "SolutionPrediction_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SolutionPrediction" ADD CONSTRAINT "SolutionPrediction_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;
