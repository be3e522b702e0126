import { randomBytes } from "node:crypto";
import { quantileSorted, type Rng } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { SEED_GENERATORS, SEED_TOPIC_WORDS } from "@stepwiser/db/seed";
import superjson from "superjson";
import { appRouter, type authPool, createAuth, createUserWithPassword, handleTrpcRequest, type RouterInputs } from "../src";

/**
 * What the web benchmarks share: signed-in users whose requests go through the
 * real tRPC fetch handler (session lookup, validation, queries, serialisation),
 * timed until the whole response body is read; the timing summary; and the
 * list views a researcher builds on a seeded dataset.
 */
const BASE_URL = "http://localhost:3998";
const PASSWORD = "bench-password-123";

export type Timings = { p50: number; p95: number; max: number; n: number };
export type ListInput = RouterInputs["solution"]["list"];
export type Role = "viewer" | "researcher" | "annotator";

export function summarise(times: number[]): Timings {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: quantileSorted(sorted, 0.5), p95: quantileSorted(sorted, 0.95), max: sorted.at(-1)!, n: sorted.length };
}

/** `requests` timed runs after `warmUp` untimed ones (warm caches and the plan cache), one at a time. */
export async function measure(label: string, run: () => Promise<number>, requests: number, warmUp = 20): Promise<Timings> {
  for (let i = 0; i < warmUp; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await run());
  const result = summarise(times);
  console.error(`${label}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms`);
  return result;
}

export interface SignedIn {
  id: string;
  cookie: string;
}

export interface BenchSession {
  viewer: SignedIn;
  signIn(email: string, role: Role): Promise<SignedIn>;
  /** One request through the tRPC handler (a query as a GET, a mutation as a POST); the time includes reading the whole response body. */
  call<T = unknown>(procedure: string, input: unknown, cookie: string, method: "GET" | "POST"): Promise<{ ms: number; data: T }>;
  /** A query as the viewer, its time in ms. */
  timedQuery(procedure: string, input: unknown): Promise<number>;
  /** The viewer's procedures called in-process (no timing), for picking inputs. */
  caller: ReturnType<typeof appRouter.createCaller>;
}

/** Signs in a viewer through better-auth; more users with `signIn`. */
export async function openBenchSession(db: Db, url: string, pool: ReturnType<typeof authPool>): Promise<BenchSession> {
  const auth = createAuth({ databaseUrl: url, baseUrl: BASE_URL, secret: randomBytes(32).toString("hex"), signInAttemptsPerMinute: 1000 }, pool);
  const signIn = async (email: string, role: Role): Promise<SignedIn> => {
    const user = await createUserWithPassword(db, { email, name: email.split("@")[0]!, role, password: PASSWORD });
    const response = await auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email, password: PASSWORD }),
      }),
    );
    if (response.status !== 200) throw new Error(`bench sign-in of ${email} failed: ${response.status}`);
    return { id: user.id, cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") };
  };
  const viewer = await signIn("bench@example.test", "viewer");
  const deps = { db, auth, getQueue: () => Promise.reject(new Error("no queue in this benchmark")) };
  const call = async <T = unknown>(procedure: string, input: unknown, cookie: string, method: "GET" | "POST"): Promise<{ ms: number; data: T }> => {
    const serialized = JSON.stringify(superjson.serialize(input));
    const request =
      method === "GET"
        ? new Request(`${BASE_URL}/api/trpc/${procedure}?input=${encodeURIComponent(serialized)}`, { headers: { cookie } })
        : new Request(`${BASE_URL}/api/trpc/${procedure}`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: serialized });
    const started = performance.now();
    const response = await handleTrpcRequest(request, deps);
    const body = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`${procedure} answered ${response.status}: ${body.slice(0, 300)}`);
    const parsed = JSON.parse(body) as { result: { data: Parameters<typeof superjson.deserialize>[0] } };
    return { ms, data: superjson.deserialize<T>(parsed.result.data) };
  };
  const timedQuery = async (procedure: string, input: unknown): Promise<number> => (await call(procedure, input, viewer.cookie, "GET")).ms;
  const caller = appRouter.createCaller({ db, getQueue: deps.getQueue, user: { id: viewer.id, email: "bench@example.test", name: "bench", role: "viewer" } });
  return { viewer, signIn, call, timedQuery, caller };
}

/**
 * The views a researcher builds on a seeded dataset, each a filter plus a sort:
 * correctness and generator; lowest-Q range sorted by Q; rule disagreement; judge
 * vs. Monte-Carlo first error; judge verdict with source label; text search;
 * text search sorted by Q; subset and correctness by id.
 */
export function seededListViews(rng: Rng, seeded: { annotateRunId: string; judgeRunIds: readonly [string, string] }): Array<() => Omit<ListInput, "datasetId">> {
  const pick = <T>(items: readonly T[]): T => items[rng.nextInt(items.length)]!;
  const { annotateRunId, judgeRunIds } = seeded;
  return [
    () => ({ correct: false, generator: pick(SEED_GENERATORS) }),
    () => ({ annotateRunId, qMin: 0, qMax: 0.3, sort: "qMin" }),
    () => ({ annotateRunId, disagreement: "rules", sort: "annotateFirstNegative", order: "desc" }),
    () => ({ annotateRunId, judgeRunId: judgeRunIds[1], disagreement: "judge" }),
    () => ({ judgeRunId: judgeRunIds[0], judgeVerdict: "flagged", hasError: false, sort: "judgeFirstNegative" }),
    () => ({ search: pick(SEED_TOPIC_WORDS) }),
    () => ({ search: pick(SEED_TOPIC_WORDS), annotateRunId, sort: "qMin" }),
    () => ({ subset: "math", correct: true, sort: "externalId", order: "desc" }),
  ];
}
