-- AlterTable
ALTER TABLE "AnnotationQueue" ALTER COLUMN "blind" SET DEFAULT true;
