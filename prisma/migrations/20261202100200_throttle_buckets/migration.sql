-- CreateTable
CREATE TABLE "ThrottleBucket" (
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ThrottleBucket_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "ThrottleBucket_updatedAt_idx" ON "ThrottleBucket"("updatedAt");
