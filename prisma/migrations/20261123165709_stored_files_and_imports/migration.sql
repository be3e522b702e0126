-- Uploaded files move from one bytea per file (ImportFile) to StoredFile rows
-- with their content in ordered parts, existing uploads kept as one part.
-- AlterEnum
ALTER TYPE "RunKind" ADD VALUE 'export';



-- AlterTable
ALTER TABLE "HumanLabel" ADD COLUMN     "externalAuthor" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "inputFileId" TEXT;

-- AlterTable
ALTER TABLE "Trajectory" ADD COLUMN     "contentHash" TEXT;


-- CreateTable
CREATE TABLE "StoredFile" (
    "id" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "contentType" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "sha256" TEXT,
    "sizeBytes" BIGINT NOT NULL DEFAULT 0,
    "completedAt" TIMESTAMP(3),
    "producedByRunId" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StoredFilePart" (
    "fileId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,

    CONSTRAINT "StoredFilePart_pkey" PRIMARY KEY ("fileId","index")
);

-- CreateIndex
CREATE INDEX "StoredFile_sha256_idx" ON "StoredFile"("sha256");

-- CreateIndex
CREATE INDEX "StoredFile_producedByRunId_idx" ON "StoredFile"("producedByRunId");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_contentHash_idx" ON "Trajectory"("datasetId", "contentHash");

-- AddForeignKey
ALTER TABLE "StoredFile" ADD CONSTRAINT "StoredFile_producedByRunId_fkey" FOREIGN KEY ("producedByRunId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StoredFile" ADD CONSTRAINT "StoredFile_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StoredFilePart" ADD CONSTRAINT "StoredFilePart_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "StoredFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_inputFileId_fkey" FOREIGN KEY ("inputFileId") REFERENCES "StoredFile"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Keep every stored upload and the runs that read it.
INSERT INTO "StoredFile" ("id", "fileName", "purpose", "contentType", "sha256", "sizeBytes", "completedAt", "createdById", "createdAt")
SELECT "id", "fileName", 'upload', 'application/json', "sha256", "sizeBytes", "createdAt", "createdById", "createdAt" FROM "ImportFile";
INSERT INTO "StoredFilePart" ("fileId", "index", "content") SELECT "id", 0, "content" FROM "ImportFile";
UPDATE "Run" SET "inputFileId" = "importFileId" WHERE "importFileId" IS NOT NULL;

ALTER TABLE "Run" DROP CONSTRAINT "Run_importFileId_fkey";
ALTER TABLE "Run" DROP COLUMN "importFileId";
DROP TABLE "ImportFile";
