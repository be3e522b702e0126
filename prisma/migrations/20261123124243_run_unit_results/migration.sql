-- AlterTable
ALTER TABLE "RunUnit" ADD COLUMN     "result" JSONB;
