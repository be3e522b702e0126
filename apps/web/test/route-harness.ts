import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { appRouter, createUserWithPassword, getAuth, type SessionUser } from "@stepwiser/api";
import { ROLES, type UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { HTTP_METHODS, type HttpMethod } from "../src/server/route-access";

/*
 * The web app's real route handlers (app/api/**\/route.ts, imported as Next.js
 * imports them) on a fresh test database, with one signed-in account per role:
 * session cookies from the real sign-in route and an API token each.
 */

export const APP_ORIGIN = "http://localhost:3981";
export const TRUSTED_ORIGIN = "https://proxy.example.test";
export const PASSWORD = "route-harness-password";

/**
 * Closes and forgets the process-wide handles the app keeps on globalThis (its
 * Prisma client, auth instance and queue sender: apps/web/src/server/deps.ts),
 * so the next getDb()/getAuth() opens them on the current DATABASE_URL.
 */
async function forgetProcessHandles(): Promise<void> {
  const handles = globalThis as { stepwiserDb?: { $disconnect(): Promise<void> }; stepwiserAuth?: unknown; stepwiserQueue?: Promise<{ stop(): Promise<void> }> };
  const { stepwiserDb: db, stepwiserQueue: queue } = handles;
  delete handles.stepwiserDb;
  delete handles.stepwiserAuth;
  delete handles.stepwiserQueue;
  await db?.$disconnect().catch(() => {});
  await queue?.then((q) => q.stop()).catch(() => {});
}

const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/app/api");

export interface RouteFile {
  /** The route's path as the file system names it, e.g. "/api/files/[id]". */
  route: string;
  file: string;
}

/** Every route handler file under app/api, found on disk: a new route is found without anyone listing it. */
export function discoverRouteFiles(dir = apiDir, prefix = "/api"): RouteFile[] {
  const found: RouteFile[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...discoverRouteFiles(full, `${prefix}/${entry}`));
    else if (/^route\.(ts|tsx|js)$/.test(entry)) found.push({ route: prefix, file: full });
  }
  return found;
}

type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response> | Response;
export type RouteModule = Partial<Record<HttpMethod, Handler>>;

export interface Harness {
  database: TestDatabase;
  users: Map<UserRole, SessionUser>;
  cookies: Map<UserRole, string>;
  tokens: Map<UserRole, string>;
  routes: Map<string, RouteModule>;
  /** Calls a route's exported handler the way Next.js does, with its dynamic params. */
  call(route: string, method: HttpMethod, request: Request, params?: Record<string, string | string[]>): Promise<Response>;
  close(): Promise<void>;
}

export function exportedMethods(module: RouteModule): HttpMethod[] {
  return HTTP_METHODS.filter((method) => typeof module[method] === "function");
}

/**
 * Points the app's process-wide handles (getDb, getAuth) at a fresh test
 * database, imports every route module, and signs in one account per role.
 */
export async function startHarness(postgresAdminUrl: string): Promise<Harness> {
  const database = await createTestDatabase(postgresAdminUrl);
  const settings: Record<string, string> = {
    DATABASE_URL: database.url,
    STEPWISER_AUTH_SECRET: "r".repeat(40),
    STEPWISER_PUBLIC_URL: APP_ORIGIN,
    STEPWISER_TRUSTED_ORIGINS: TRUSTED_ORIGIN,
    STEPWISER_SIGN_IN_PER_MINUTE: "1000",
  };
  const previousEnv = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  Object.assign(process.env, settings);
  // Test files share a worker process: handles an earlier file made point at its database, dropped since.
  await forgetProcessHandles();

  const routes = new Map<string, RouteModule>();
  for (const { route, file } of discoverRouteFiles()) routes.set(route, (await import(file)) as RouteModule);
  const call: Harness["call"] = async (route, method, request, params = {}) => {
    const handler = routes.get(route)?.[method];
    if (!handler) throw new Error(`${route} exports no ${method} handler`);
    return handler(request, { params: Promise.resolve(params) });
  };

  const users = new Map<UserRole, SessionUser>();
  const cookies = new Map<UserRole, string>();
  const tokens = new Map<UserRole, string>();
  for (const role of ROLES) {
    const email = `${role}@routes.test`;
    const created = await createUserWithPassword(database.db, { email, name: `${role} account`, role, password: PASSWORD });
    const user: SessionUser = { id: created.id, email, name: `${role} account`, role };
    users.set(role, user);
    const signIn = await call(
      "/api/auth/[...all]",
      "POST",
      new Request(`${APP_ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: APP_ORIGIN },
        body: JSON.stringify({ email, password: PASSWORD }),
      }),
      { all: ["sign-in", "email"] },
    );
    if (signIn.status !== 200) throw new Error(`sign-in of ${role} answered ${signIn.status}: ${await signIn.text()}`);
    cookies.set(role, signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "));
    const caller = appRouter.createCaller({ db: database.db, user, getQueue: async () => Promise.reject(new Error("no job queue here")) });
    tokens.set(role, (await caller.token.create({ name: `${role} script` })).token);
  }

  return {
    database,
    users,
    cookies,
    tokens,
    routes,
    call,
    async close() {
      const auth = getAuth() as unknown as { options?: { database?: { end?: () => Promise<void> } } };
      await auth.options?.database?.end?.().catch(() => {});
      await forgetProcessHandles();
      for (const [key, value] of Object.entries(previousEnv)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await database.drop();
    },
  };
}
