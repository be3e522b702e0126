-- CreateTable
CREATE TABLE "AnnotationQueueMember" (
    "id" TEXT NOT NULL,
    "queueId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "addedById" TEXT,
    "addedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AnnotationQueueMember_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AnnotationQueueMember_userId_idx" ON "AnnotationQueueMember"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "AnnotationQueueMember_queueId_userId_key" ON "AnnotationQueueMember"("queueId", "userId");

-- AddForeignKey
ALTER TABLE "AnnotationQueueMember" ADD CONSTRAINT "AnnotationQueueMember_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "AnnotationQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationQueueMember" ADD CONSTRAINT "AnnotationQueueMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AnnotationQueueMember" ADD CONSTRAINT "AnnotationQueueMember_addedById_fkey" FOREIGN KEY ("addedById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;
