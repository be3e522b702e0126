-- AlterTable
ALTER TABLE "RunUnit" ADD COLUMN     "claimedBy" TEXT,
ADD COLUMN     "leaseExpiresAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "WorkerProcess" (
    "id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activeRuns" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "WorkerProcess_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EndpointCapacityLease" (
    "replicaKey" TEXT NOT NULL,
    "holderId" TEXT NOT NULL,
    "slots" INTEGER NOT NULL,
    "demand" INTEGER NOT NULL,
    "renewedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EndpointCapacityLease_pkey" PRIMARY KEY ("replicaKey","holderId")
);

-- CreateIndex
CREATE INDEX "WorkerProcess_heartbeatAt_idx" ON "WorkerProcess"("heartbeatAt");
