-- CreateTable
CREATE TABLE "ScalingCurve" (
    "runId" TEXT NOT NULL,
    "goldKey" TEXT NOT NULL,
    "draws" INTEGER NOT NULL,
    "seed" TEXT NOT NULL,
    "curve" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ScalingCurve_pkey" PRIMARY KEY ("runId","goldKey","draws","seed")
);

-- AddForeignKey
ALTER TABLE "ScalingCurve" ADD CONSTRAINT "ScalingCurve_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
