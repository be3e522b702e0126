-- Human work (human labels, annotation items, assignments) is never removed by a cascade.
-- Its foreign keys restrict the delete of what they point to, so deleting a chunk, solution,
-- segmentation, queue or dataset that holds human work fails unless that work was deleted first.
-- Only the delete rule changes: no row is touched.

-- DropForeignKey
ALTER TABLE "HumanLabel" DROP CONSTRAINT "HumanLabel_chunkId_fkey";

-- DropForeignKey
ALTER TABLE "HumanLabel" DROP CONSTRAINT "HumanLabel_queueId_fkey";

-- DropForeignKey
ALTER TABLE "HumanLabel" DROP CONSTRAINT "HumanLabel_itemId_fkey";

-- DropForeignKey
ALTER TABLE "HumanLabel" DROP CONSTRAINT "HumanLabel_assignmentId_fkey";

-- DropForeignKey
ALTER TABLE "AnnotationItem" DROP CONSTRAINT "AnnotationItem_queueId_fkey";

-- DropForeignKey
ALTER TABLE "AnnotationItem" DROP CONSTRAINT "AnnotationItem_trajectoryId_fkey";

-- DropForeignKey
ALTER TABLE "AnnotationItem" DROP CONSTRAINT "AnnotationItem_segmentationId_fkey";

-- DropForeignKey
ALTER TABLE "AnnotationAssignment" DROP CONSTRAINT "AnnotationAssignment_itemId_fkey";

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "Chunk"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "AnnotationItem"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_assignmentId_fkey" FOREIGN KEY ("assignmentId") REFERENCES "AnnotationAssignment"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationItem" ADD CONSTRAINT "AnnotationItem_segmentationId_fkey" FOREIGN KEY ("segmentationId") REFERENCES "Segmentation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationAssignment" ADD CONSTRAINT "AnnotationAssignment_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "AnnotationItem"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
