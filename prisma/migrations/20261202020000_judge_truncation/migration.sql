-- AlterTable
ALTER TABLE "JudgeSample" ADD COLUMN "truncated" BOOLEAN NOT NULL DEFAULT false;
