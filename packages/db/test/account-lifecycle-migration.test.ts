import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/** Accounts gain `disabledAt`; API tokens gain an expiry and a scope, and tokens made before keep working as they did, for 90 days. */
const MIGRATION = "20261202100000_account_lifecycle";
const DAY_MS = 24 * 60 * 60 * 1000;

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string) => db.client.query(text);

  it("gives existing tokens the read-write scope and an expiry 90 days after the migration; accounts stay enabled", async () => {
    await q(`INSERT INTO "user" (id, name, email, role, "updatedAt") VALUES ('u1', 'old', 'old@example.test', 'researcher', now())`);
    await q(`INSERT INTO "ApiToken" (id, "userId", name, "tokenHash", prefix) VALUES ('t1', 'u1', 'old script', 'hash-1', 'sw_old')`);
    const before = Date.now();
    await applyMigrations(db.url);

    const { rows } = await q(`SELECT scope, "expiresAt" FROM "ApiToken" WHERE id = 't1'`);
    expect(rows[0].scope).toBe("read-write");
    const expiresAt = (rows[0].expiresAt as Date).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY_MS - 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS + 60_000);
    expect((await q(`SELECT "disabledAt" FROM "user" WHERE id = 'u1'`)).rows[0].disabledAt).toBeNull();

    // New tokens need an expiry given, and a scope of the two.
    await expect(q(`INSERT INTO "ApiToken" (id, "userId", name, "tokenHash", prefix) VALUES ('t2', 'u1', 'no expiry', 'hash-2', 'sw_new')`)).rejects.toThrow(/expiresAt/);
    await expect(
      q(`INSERT INTO "ApiToken" (id, "userId", name, "tokenHash", prefix, "expiresAt", scope) VALUES ('t3', 'u1', 'bad', 'hash-3', 'sw_bad', now(), 'admin')`),
    ).rejects.toThrow(/ApiToken_scope_check/);
  });
});
