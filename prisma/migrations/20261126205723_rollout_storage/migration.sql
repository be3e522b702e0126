-- Rollout storage at the volume of the paper (docs/DECISIONS.md, "Rollout storage"):
-- a rollout is keyed by where it was drawn (no surrogate id, no second unique index),
-- and its text may be absent (the rolloutText policy of its run). The text
-- column is set to lz4 compression after the migrations where the server has
-- lz4 (applyMigrations): a statement that fails on other servers cannot be here.

-- DropIndex
DROP INDEX "Rollout_runId_segmentationId_prefixLength_sampleIndex_key";

-- AlterTable
ALTER TABLE "Rollout" DROP CONSTRAINT "Rollout_pkey",
DROP COLUMN "id",
ALTER COLUMN "text" DROP NOT NULL,
ADD CONSTRAINT "Rollout_pkey" PRIMARY KEY ("runId", "segmentationId", "prefixLength", "sampleIndex");
