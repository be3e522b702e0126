import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createSimWorldDataset } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, runCli } from "./run-cli";

describe("stepwiser run", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 500 });
    await database.db.endpoint.create({ data: { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "cli", problems: 6, seed: 90 }));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-run-"));
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const env = () => ({ DATABASE_URL: database.url });

  it("launches an annotate run from a config file, follows it, and relabels it without requests", async () => {
    const config = path.join(scratch, "annotate.json");
    await writeFile(config, JSON.stringify({ datasetId, policyEndpoint: "sim-policy", rollouts: 4, seed: 1 }));
    // As the executable, its stderr a pipe: what a log or CI sees of the progress line.
    const result = await runCli(["run", "annotate", "--config", config], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const run = jsonOf(result) as { runId: string; status: string; unitsDone: number; requests: number };
    expect(run).toMatchObject({ status: "completed", unitsDone: 6 });
    expect(run.requests).toBeGreaterThan(0);
    expect(result.stderr).toContain(`run ${run.runId}: completed 6/6 units`);
    // Not a terminal here: plain lines, the last one with the rate and the time taken, the counts after it.
    expect(result.stderr).not.toContain("\r");
    expect(result.stderr).toMatch(new RegExp(`run ${run.runId}: completed 6/6 units · [0-9.–]+/s · \\d+ (s|min) .*0 failed · ${run.requests} requests · \\d+ tokens generated\n`));

    const relabel = await runCliInProcess(["run", "relabel", run.runId, "--rule", "rel-ratio", "--gamma", "0.9"], env());
    expect(relabel.code, relabel.stderr).toBe(0);
    expect(jsonOf(relabel)).toMatchObject({ solutions: 6, requests: 0, rules: ["rel-ratio(gamma=0.9)"] });
    const stored = await database.db.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored.requests).toBe(run.requests);
    // No admin in this database yet: the run is taken, its creator unknown.
    expect(stored.createdById).toBeNull();
    // Its label balance and mean confidence under its first rule (Abs-Q, own prefix), stored when it finished.
    const [labels] = await database.db.$queryRaw<{ balance: number; confidence: number }[]>`
      SELECT avg((label = 'Positive')::int)::float8 AS balance, avg(confidence) AS confidence
      FROM "ChunkLabel" WHERE "runId" = ${run.runId} AND rule = 'abs_q' AND "paramsKey" = '{"evidence":"own-prefix"}'`;
    expect(stored.labelBalance).toBeCloseTo(labels!.balance, 12);
    expect(stored.meanConfidence).toBeCloseTo(labels!.confidence, 12);
  });

  it("refuses a bad config with the file and field, storing no run", async () => {
    const config = path.join(scratch, "bad.json");
    await writeFile(config, JSON.stringify({ datasetId, policyEndpoint: "sim-policy", rollouts: 0 }));
    const before = await database.db.run.count();
    const result = await runCliInProcess(["run", "annotate", "--config", config], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.json, field "rollouts"/);
    const unknownEndpoint = path.join(scratch, "endpoint.json");
    await writeFile(unknownEndpoint, JSON.stringify({ datasetId, policyEndpoint: "gpt-9" }));
    const missing = await runCliInProcess(["run", "annotate", "--config", unknownEndpoint], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no endpoint named "gpt-9"');
    expect(await database.db.run.count()).toBe(before);
  });

  it("names and tags a run at launch, and renames and retags it with run edit (audited as the first admin)", async () => {
    const admin = await database.db.user.create({ data: { id: "admin-cli", email: "admin@cli.test", name: "Admin", role: "admin" } });
    const config = path.join(scratch, "named.json");
    await writeFile(config, JSON.stringify({ datasetId, policyEndpoint: "sim-policy", rollouts: 2, seed: 3, limit: 1 }));
    const launched = await runCliInProcess(["run", "annotate", "--config", config, "--detach", "--name", "pilot M=2", "--tag", "pilot", "--tag", "cli, smoke"], env());
    expect(launched.code, launched.stderr).toBe(0);
    const { runId, name } = jsonOf(launched) as { runId: string; name: string };
    expect(name).toBe("pilot M=2");
    // Created by the user the command line acts as, as the Runs page's "Created by" shows.
    expect((await database.db.run.findUniqueOrThrow({ where: { id: runId }, select: { createdById: true } })).createdById).toBe(admin.id);
    expect(await database.db.run.findUniqueOrThrow({ where: { id: runId }, select: { name: true, tags: true } })).toEqual({ name: "pilot M=2", tags: ["pilot", "cli", "smoke"] });
    await runCliInProcess(["run", "cancel", runId], env());

    const edited = await runCliInProcess(["run", "edit", runId, "--name", "pilot, renamed", "--no-tags", "--notes", "Cancelled: *too small*."], env());
    expect(edited.code, edited.stderr).toBe(0);
    expect(jsonOf(edited)).toEqual({ id: runId, name: "pilot, renamed", notes: "Cancelled: *too small*.", tags: [], changed: ["name", "notes", "tags"] });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "run.updated", entityId: runId } });
    expect(audit).toMatchObject({ actorId: admin.id, before: { name: "pilot M=2", tags: ["pilot", "cli", "smoke"] }, after: { name: "pilot, renamed", tags: [] } });

    const generated = await runCliInProcess(["run", "edit", runId, "--generated-name"], env());
    expect(jsonOf(generated)).toMatchObject({ name: "annotate · sim-policy · M=2 · fixed" });

    // Bad names and tags name the flag; nothing is stored.
    const before = await database.db.run.count();
    const badTag = await runCliInProcess(["run", "annotate", "--config", config, "--detach", "--tag", "ok", "--tag", "#hash"], env());
    expect(badTag.code).toBe(2);
    expect(badTag.stderr).toMatch(/--tag: a tag starts with a letter or digit/);
    const emptyName = await runCliInProcess(["run", "edit", runId, "--name", " "], env());
    expect(emptyName.code).toBe(2);
    expect(emptyName.stderr).toMatch(/--name: a run name cannot be empty/);
    const nothing = await runCliInProcess(["run", "edit", runId], env());
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("run edit needs --name");
    expect(await database.db.run.count()).toBe(before);

    // run list: newest first, filtered by kind and status, one page at a time, as GET /runs lists them.
    const newest = await runCliInProcess(["run", "list", "--kind", "annotate", "--limit", "1"], env());
    expect(newest.code, newest.stderr).toBe(0);
    expect(jsonOf(newest)).toEqual({ runs: [expect.objectContaining({ id: runId, kind: "annotate", name: "annotate · sim-policy · M=2 · fixed", tags: [] })], nextOffset: 1 });
    const completed = jsonOf(await runCliInProcess(["run", "list", "--status", "completed", "--offset", "0"], env())) as { runs: { id: string; status: string }[]; nextOffset: null };
    expect(completed.runs.length).toBeGreaterThan(0);
    expect(completed.runs.every((run) => run.status === "completed" && run.id !== runId)).toBe(true);
    expect(completed.nextOffset).toBeNull();
    const badLimit = await runCliInProcess(["run", "list", "--limit", "0"], env());
    expect(badLimit).toMatchObject({ code: 2, stdout: "" });
    expect(badLimit.stderr).toContain('--limit must be a whole number from 1 to 200, got "0"');
  });
});
