import { readFileSync } from "node:fs";
import path from "node:path";
import { createTestDatabase, rowChangesSince, tableRowCounts, type TableCounts, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Pool } from "pg";
import { appRouter, authPool, createAuth, handleTrpcRequest, type ContextDeps } from "../src";
import { createAnnotationWorld, createUser, type AnnotationWorld } from "./annotation-fixtures";
import { RUN_CONFIG_CASES, runConfigBytes } from "@stepwiser/jobs/testing/run-config-corpus";

interface ApiCase {
  name: string;
  procedure: string;
  kind: "query" | "mutation";
  caller: "researcher" | "annotator";
  /** `$NAME` strings stand for rows made in the set-up (see `placeholders`). */
  input?: unknown;
  /** A body that is not the JSON the client sends. */
  rawBody?: string;
  /** Inputs too large to keep as text: a huge string or deep nesting at a dotted path of `base`. */
  generate?: { hugeString: string; bytes: number; base: unknown } | { deepNesting: string; levels: number; base: unknown };
  status: 400 | 404;
  /** The zod issue path the error must carry (null: a domain error, named in the message). */
  path: string | null;
  message: string;
}

const API_CASES = readFileSync(path.join(import.meta.dirname, "fixtures/bad-input/api-inputs.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as ApiCase);

interface TrpcErrorBody {
  error?: { json: { message: string; data: { code: string; httpStatus: number; zodIssues: { path: string; message: string }[] | null } } };
  result?: unknown;
}

const BASE_URL = "http://localhost:3998";

function substitute(value: unknown, names: Record<string, string>): unknown {
  if (typeof value === "string") return value.startsWith("$") && value in names ? names[value] : value;
  if (Array.isArray(value)) return value.map((item) => substitute(item, names));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, names)]));
  return value;
}

/** `base` with `leaf` set at a dotted path (array indexes allowed). */
function withValueAt(base: unknown, dotted: string, leaf: unknown): unknown {
  const root = structuredClone(base) as Record<string, unknown>;
  const keys = dotted.split(".");
  let at: Record<string, unknown> = root;
  keys.slice(0, -1).forEach((key, i) => {
    at[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {};
    at = at[key] as Record<string, unknown>;
  });
  at[keys.at(-1)!] = leaf;
  return root;
}

/** The request body as text: huge and deeply nested inputs are spliced in as text, never built as objects. */
function bodyOf(entry: ApiCase, names: Record<string, string>): string {
  if (entry.rawBody !== undefined) return entry.rawBody;
  if (entry.generate && "hugeString" in entry.generate) {
    return JSON.stringify({ json: withValueAt(substitute(entry.generate.base, names), entry.generate.hugeString, "x".repeat(entry.generate.bytes)) });
  }
  if (entry.generate && "deepNesting" in entry.generate) {
    const marker = "__NESTED__";
    const text = JSON.stringify({ json: withValueAt(substitute(entry.generate.base, names), entry.generate.deepNesting, marker) });
    const { levels } = entry.generate;
    return text.replace(JSON.stringify(marker), `${"[".repeat(levels)}${"]".repeat(levels)}`);
  }
  return JSON.stringify({ json: substitute(entry.input, names) });
}

describe("bad input to the API", () => {
  let database: TestDatabase;
  let queue: JobQueue | undefined;
  let deps: ContextDeps;
  let pool: Pool | undefined;
  let world: AnnotationWorld;
  const tokens = { researcher: "", annotator: "" };
  const names: Record<string, string> = {};
  const tally = { apiInputs: 0, runConfigs: 0 };
  let rowsChanged = 0;
  let stillAnswering = true;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const { db } = database;
    deps = {
      db,
      auth: createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "x".repeat(32) }, (pool = authPool(database.url))),
      getQueue: async () => (queue ??= await connectJobQueue(database.url)),
    };
    await db.endpoint.createMany({
      data: [
        { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 },
        { name: "sim-judge", model: "sim-judge-strong", role: "judge", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 },
      ],
    });
    world = await createAnnotationWorld(db, { solutions: 3, seed: 11 });
    const researcherUser = await createUser(db, "researcher", "Rosa");
    const annotatorUser = await createUser(db, "annotator", "Abel");
    const researcher = appRouter.createCaller({ db, user: researcherUser, getQueue: deps.getQueue });
    const annotator = appRouter.createCaller({ db, user: annotatorUser, getQueue: deps.getQueue });
    const queueFor = async (scheme: "rating" | "first_error") =>
      (
        await researcher.annotationQueue.createQueue({
          name: `bad input ${scheme}`,
          datasetId: world.datasetId,
          scheme,
          selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 1 },
          annotatorIds: [annotatorUser.id],
        })
      ).queueId;
    const rating = (await annotator.annotationQueue.next({ queueId: await queueFor("rating") }))!;
    const firstError = (await annotator.annotationQueue.next({ queueId: await queueFor("first_error") }))!;
    Object.assign(names, {
      $DATASET: world.datasetId,
      $SOLUTION: world.solutions[0]!.id,
      $ANNOTATE_RUN: world.annotateRunId,
      $RATING_ASSIGNMENT: rating.assignmentId,
      $RATING_CHUNK0: rating.chunks[0]!.id,
      $FIRST_ERROR_ASSIGNMENT: firstError.assignmentId,
      $OTHER_CHUNK: world.solutions[2]!.chunkIds[0]!,
    });
    tokens.researcher = (await researcher.token.create({ name: "bad input" })).token;
    tokens.annotator = (await annotator.token.create({ name: "bad input" })).token;
  });

  afterAll(async () => {
    process.stderr.write(
      `bad input (API): ${tally.apiInputs + tally.runConfigs} inputs rejected (procedure inputs ${tally.apiInputs}, run.launch configs ${tally.runConfigs}), ${rowsChanged} rows changed, ${stillAnswering ? "handler still answering" : "handler NOT answering"}\n`,
    );
    await queue?.stop({ graceful: false, wait: true });
    await pool?.end();
    await database?.drop();
  });

  function send(procedure: string, kind: "query" | "mutation", body: string, token: string): Promise<Response> {
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    const request =
      kind === "mutation"
        ? new Request(`${BASE_URL}/api/trpc/${procedure}`, { method: "POST", headers, body })
        : new Request(`${BASE_URL}/api/trpc/${procedure}?input=${encodeURIComponent(body)}`, { headers });
    return handleTrpcRequest(request, deps);
  }

  async function refusal(response: Response) {
    const body = (await response.json()) as TrpcErrorBody;
    expect(body.error, `expected an error, got ${JSON.stringify(body).slice(0, 500)}`).toBeDefined();
    const { message, data } = body.error!.json;
    expect(message.length, "the message is readable, not a dump of the input").toBeLessThan(4_000);
    expect(message).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    return { status: response.status, message, code: data.code, issues: data.zodIssues ?? [] };
  }

  /** Row counts before one input, so a leak is blamed on the input that caused it and on no later one. */
  const snapshot = () => tableRowCounts(database.db);

  async function expectNothingStored(countsBefore: TableCounts): Promise<void> {
    const changes = await rowChangesSince(database.db, countsBefore);
    rowsChanged += changes.rows;
    expect(changes.tables).toEqual([]);
  }

  /** The same handler answers a good request at once. */
  async function expectStillAnswering(): Promise<void> {
    const response = await send("dataset.get", "query", JSON.stringify({ json: { id: world.datasetId } }), tokens.researcher);
    if (response.status !== 200) stillAnswering = false;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id).toBe(world.datasetId);
  }

  it("the corpus reaches every router named for bad-input coverage", () => {
    const routers = new Set(API_CASES.map((entry) => entry.procedure.split(".")[0]));
    for (const router of ["dataset", "solution", "run", "annotationQueue", "compare", "export", "import"]) expect(routers).toContain(router);
    expect(API_CASES.length).toBeGreaterThanOrEqual(34);
  });

  it.each(API_CASES)("refused: $name", async (entry) => {
    const before = await snapshot();
    const response = await send(entry.procedure, entry.kind, bodyOf(entry, names), tokens[entry.caller]);
    await expectNothingStored(before);
    const { status, message, issues } = await refusal(response);
    expect({ status, message }).toMatchObject({ status: entry.status });
    if (entry.path !== null) {
      const issue = issues.find((candidate) => candidate.path === entry.path);
      expect(issue, `no zod issue at "${entry.path}" in ${JSON.stringify(issues)}`).toBeDefined();
      expect(issue!.message).toContain(entry.message);
      // The message itself names the field too, for clients that read only the message.
      expect(message).toContain(entry.path === "" ? issue!.message : `field "${entry.path}": ${issue!.message}`);
    } else {
      expect(message).toContain(entry.message);
    }
    await expectStillAnswering();
    tally.apiInputs += 1;
  });

  const launchable = RUN_CONFIG_CASES.filter((entry) => entry.line === null);

  it.each(launchable)("run.launch refuses the config: $name", async (entry) => {
    const before = await snapshot();
    const configText = runConfigBytes(entry, world.datasetId).toString("utf8");
    const body = `{"json":{"kind":${JSON.stringify(entry.kind)},"config":${configText}}}`;
    const response = await send("run.launch", "mutation", body, tokens.researcher);
    await expectNothingStored(before);
    const { status, message, code, issues } = await refusal(response);
    expect({ status, code }).toEqual({ status: 400, code: "BAD_REQUEST" });
    if (configText.trimStart().startsWith("{")) {
      if (entry.field !== null) expect(message).toContain(`field "${entry.field}"`);
      expect(message).toContain(entry.message);
    } else {
      // Not an object: refused by the procedure's own input schema, at "config".
      expect(issues.map((issue) => issue.path)).toContain("config");
    }
    await expectStillAnswering();
    tally.runConfigs += 1;
  });
});
