-- CreateTable
CREATE TABLE "BootstrapReplicates" (
    "runId" TEXT NOT NULL,
    "goldKey" TEXT NOT NULL,
    "resamples" INTEGER NOT NULL,
    "seed" TEXT NOT NULL,
    "subsets" TEXT[],
    "values" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BootstrapReplicates_pkey" PRIMARY KEY ("runId","goldKey","resamples","seed")
);

-- AddForeignKey
ALTER TABLE "BootstrapReplicates" ADD CONSTRAINT "BootstrapReplicates_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
