-- CreateEnum
CREATE TYPE "ImportReportEntryKind" AS ENUM ('invalid', 'ignored');

-- CreateTable
CREATE TABLE "ImportReportEntry" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" "ImportReportEntryKind" NOT NULL,
    "file" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "record" INTEGER,
    "field" TEXT,
    "reason" TEXT NOT NULL,
    "reasonKey" TEXT NOT NULL,

    CONSTRAINT "ImportReportEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ImportReportEntry_runId_kind_line_idx" ON "ImportReportEntry"("runId", "kind", "line");

-- AddForeignKey
ALTER TABLE "ImportReportEntry" ADD CONSTRAINT "ImportReportEntry_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
