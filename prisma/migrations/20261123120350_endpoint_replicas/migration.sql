-- Each endpoint lists one base URL per replica. Existing endpoints keep theirs as the only replica.
ALTER TABLE "Endpoint" ADD COLUMN "baseUrls" TEXT[];
UPDATE "Endpoint" SET "baseUrls" = ARRAY["baseUrl"];
ALTER TABLE "Endpoint" DROP COLUMN "baseUrl";
