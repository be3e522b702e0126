-- A run's kind is text: the kinds are the registry's (packages/jobs/src/registry.ts), so a new kind is its
-- folder and its registry line, with no enum value to add. Every stored value is kept as its name.
ALTER TABLE "Run" ALTER COLUMN "kind" SET DATA TYPE TEXT USING "kind"::text;

DROP TYPE "RunKind";
