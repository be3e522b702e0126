-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "name" TEXT,
ADD COLUMN     "notes" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "Run_tags_idx" ON "Run" USING GIN ("tags");
