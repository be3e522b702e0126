import { betterAuth } from "better-auth";
import pg from "pg";
import { positiveIntegerSetting } from "../request-limits/body-cap";
import { CLIENT_ADDRESS_HEADER } from "../request-origin/request-origin";
import { refuseDisabledAccounts } from "./disabled-accounts";
import { apiLog } from "../log";

export interface AuthConfig {
  databaseUrl: string;
  /** Public origin of the web app, e.g. http://localhost:3000. */
  baseUrl: string;
  secret: string;
  /** Extra origins allowed to call the auth endpoints (reverse proxies). */
  trustedOrigins?: string[];
  /** Sign-in attempts allowed per client address per minute (default 10): slows password guessing. */
  signInAttemptsPerMinute?: number;
}

/**
 * Email + password sign-in through better-auth (see docs/DECISIONS.md). Accounts are
 * created by admins, never by self sign-up: this is a team tool with roles.
 */
export const DEFAULT_SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

export function createAuth(config: AuthConfig, pool = authPool(config.databaseUrl)) {
  const auth = betterAuth({
    database: pool,
    baseURL: config.baseUrl,
    secret: config.secret,
    trustedOrigins: config.trustedOrigins,
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "viewer", input: false },
        disabledAt: { type: "date", required: false, input: false },
      },
    },
    // A disabled account gets no session: its sign-in is refused with a message saying so.
    databaseHooks: { session: { create: { before: refuseDisabledAccounts(pool) } } },
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24 },
    // A general limit per client address, as the HTTP server resolved it (the header is its own, never the client's).
    // Email sign-in has the studio's own throttles instead (handleAuthRequest: per address and per account, in the
    // database, shared by every web process).
    rateLimit: { enabled: true, window: 60, max: 100, customRules: { "/sign-in/email": false } },
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    telemetry: { enabled: false },
  });
  return Object.assign(auth, { stepwiser: { signInAttemptsPerMinute: config.signInAttemptsPerMinute ?? DEFAULT_SIGN_IN_ATTEMPTS_PER_MINUTE } });
}

export type Auth = ReturnType<typeof createAuth>;

export function authPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // An idle connection dropped by the server (restart, failover) must not crash the process.
  pool.on("error", (error) => apiLog().error({ err: error }, "auth: idle database connection lost"));
  return pool;
}

export function authConfigFromEnv(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const databaseUrl = env.DATABASE_URL;
  const secret = env.STEPWISER_AUTH_SECRET ?? env.BETTER_AUTH_SECRET;
  if (!databaseUrl) throw new Error("DATABASE_URL is not set");
  if (!secret || secret.length < 32) throw new Error("STEPWISER_AUTH_SECRET must be set to at least 32 characters");
  const baseUrl = env.STEPWISER_PUBLIC_URL ?? `http://localhost:${env.PORT ?? 3000}`;
  const trustedOrigins = (env.STEPWISER_TRUSTED_ORIGINS ?? "").split(",").map((o) => o.trim()).filter(Boolean);
  const signInAttemptsPerMinute = positiveIntegerSetting(env, "STEPWISER_SIGN_IN_PER_MINUTE", DEFAULT_SIGN_IN_ATTEMPTS_PER_MINUTE);
  return { databaseUrl, baseUrl, secret, trustedOrigins, signInAttemptsPerMinute };
}

const globalForAuth = globalThis as { stepwiserAuth?: Auth };

export function getAuth(): Auth {
  globalForAuth.stepwiserAuth ??= createAuth(authConfigFromEnv());
  return globalForAuth.stepwiserAuth;
}
