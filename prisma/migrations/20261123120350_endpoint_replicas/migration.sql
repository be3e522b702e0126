-- An endpoint lists one base URL per replica; existing endpoints keep theirs as the only replica.
ALTER TABLE "Endpoint" ADD COLUMN "baseUrls" TEXT[];
UPDATE "Endpoint" SET "baseUrls" = ARRAY["baseUrl"];
ALTER TABLE "Endpoint" DROP COLUMN "baseUrl";
