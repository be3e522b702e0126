-- Accounts an admin disabled: they cannot sign in until an admin enables them again.
ALTER TABLE "user" ADD COLUMN "disabledAt" TIMESTAMP(3);

-- API tokens expire and carry a scope. Tokens made before this keep working as they did
-- (scope read-write) for 90 days from this migration, then are refused as expired.
ALTER TABLE "ApiToken" ADD COLUMN "expiresAt" TIMESTAMP(3) NOT NULL DEFAULT (CURRENT_TIMESTAMP + INTERVAL '90 days'),
ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'read-write';

-- New tokens are given their expiry by the application.
ALTER TABLE "ApiToken" ALTER COLUMN "expiresAt" DROP DEFAULT;

ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_scope_check" CHECK ("scope" IN ('read', 'read-write'));
