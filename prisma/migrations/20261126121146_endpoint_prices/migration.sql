-- AlterTable
ALTER TABLE "Endpoint" ADD COLUMN     "cachedPromptPricePerMTokens" DOUBLE PRECISION,
ADD COLUMN     "completionPricePerMTokens" DOUBLE PRECISION,
ADD COLUMN     "promptPricePerMTokens" DOUBLE PRECISION;
