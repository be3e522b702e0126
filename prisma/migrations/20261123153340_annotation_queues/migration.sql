-- CreateEnum
CREATE TYPE "AnnotationScheme" AS ENUM ('rating', 'first_error');

-- CreateEnum
CREATE TYPE "AssignmentStatus" AS ENUM ('leased', 'submitted', 'skipped');

-- AlterTable
ALTER TABLE "HumanLabel" ADD COLUMN     "assignmentId" TEXT,
ADD COLUMN     "itemId" TEXT,
ADD COLUMN     "queueId" TEXT;

-- CreateTable
CREATE TABLE "AnnotationQueue" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "scheme" "AnnotationScheme" NOT NULL DEFAULT 'rating',
    "annotatorsPerItem" INTEGER NOT NULL DEFAULT 1,
    "leaseSeconds" INTEGER NOT NULL DEFAULT 900,
    "blind" BOOLEAN NOT NULL DEFAULT false,
    "datasetId" TEXT NOT NULL,
    "segmentationMethod" TEXT NOT NULL,
    "annotateRunId" TEXT,
    "labelRule" TEXT,
    "judgeRunId" TEXT,
    "selection" JSONB NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "AnnotationQueue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnnotationItem" (
    "id" TEXT NOT NULL,
    "queueId" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "segmentationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "adjudicatedAt" TIMESTAMP(3),

    CONSTRAINT "AnnotationItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnnotationAssignment" (
    "id" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "annotatorId" TEXT NOT NULL,
    "status" "AssignmentStatus" NOT NULL DEFAULT 'leased',
    "leasedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "submittedAt" TIMESTAMP(3),
    "firstErrorIndex" INTEGER,

    CONSTRAINT "AnnotationAssignment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AnnotationQueue_datasetId_createdAt_idx" ON "AnnotationQueue"("datasetId", "createdAt");

-- CreateIndex
CREATE INDEX "AnnotationItem_queueId_position_idx" ON "AnnotationItem"("queueId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "AnnotationItem_queueId_trajectoryId_key" ON "AnnotationItem"("queueId", "trajectoryId");

-- CreateIndex
CREATE INDEX "AnnotationAssignment_annotatorId_status_idx" ON "AnnotationAssignment"("annotatorId", "status");

-- CreateIndex
CREATE INDEX "AnnotationAssignment_itemId_status_expiresAt_idx" ON "AnnotationAssignment"("itemId", "status", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "AnnotationAssignment_itemId_annotatorId_key" ON "AnnotationAssignment"("itemId", "annotatorId");

-- CreateIndex
CREATE INDEX "HumanLabel_queueId_itemId_createdAt_idx" ON "HumanLabel"("queueId", "itemId", "createdAt");

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "AnnotationItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_assignmentId_fkey" FOREIGN KEY ("assignmentId") REFERENCES "AnnotationAssignment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationQueue" ADD CONSTRAINT "AnnotationQueue_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationQueue" ADD CONSTRAINT "AnnotationQueue_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_segmentationId_fkey" FOREIGN KEY ("segmentationId") REFERENCES "Segmentation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationAssignment" ADD CONSTRAINT "AnnotationAssignment_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "AnnotationItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationAssignment" ADD CONSTRAINT "AnnotationAssignment_annotatorId_fkey" FOREIGN KEY ("annotatorId") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
