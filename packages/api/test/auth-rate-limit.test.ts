import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { authConfigFromEnv, authPool, createAuth, createUserWithPassword, handleAuthRequest } from "../src";

const BASE_URL = "http://localhost:3998";

// Over HTTP, with client addresses resolved by the web server and the per-account backoff: apps/web/test/request-guards.test.ts.
describe("sign-in rate limit", () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    await createUserWithPassword(database.db, { email: "limited@example.test", name: "limited", role: "viewer", password: "correct-horse-battery" });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it("refuses sign-ins beyond the configured attempts per minute from one address", async () => {
    const auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "x".repeat(32), signInAttemptsPerMinute: 2 }, pool);
    const attempt = () =>
      handleAuthRequest(
        new Request(`${BASE_URL}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE_URL },
          body: JSON.stringify({ email: "limited@example.test", password: "wrong-password-here" }),
        }),
        { auth, db: database.db },
        { clientAddress: "203.0.113.7" },
      );
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(429);
  });

  it("reads the limit from the environment, 10 by default, and rejects nonsense", () => {
    const env = { DATABASE_URL: "postgres://x", STEPWISER_AUTH_SECRET: "s".repeat(32) };
    expect(authConfigFromEnv(env).signInAttemptsPerMinute).toBe(10);
    expect(authConfigFromEnv({ ...env, STEPWISER_SIGN_IN_PER_MINUTE: "200" }).signInAttemptsPerMinute).toBe(200);
    expect(() => authConfigFromEnv({ ...env, STEPWISER_SIGN_IN_PER_MINUTE: "lots" })).toThrow(/STEPWISER_SIGN_IN_PER_MINUTE must be a positive integer/);
  });
});
