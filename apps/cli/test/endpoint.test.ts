import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";

const SECRET = "sk-endpoint-cli-test-secret";

describe("stepwiser endpoint", () => {
  let database: TestDatabase;
  let cluster: SimCluster;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 500 });
    await database.db.user.create({ data: { id: "admin-1", name: "Admin", email: "admin@example.test", role: "admin" } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  const cli = (args: string[]) => runCliInProcess(["endpoint", ...args], { DATABASE_URL: database.url, ENDPOINT_TEST_KEY: SECRET });

  it("add → list → update → test → remove, audited as the first admin, never printing the key", async () => {
    const added = await cli(["add", "--name", "sim", "--model", "sim-policy", "--role", "policy", "--url", cluster.urls[0]!, "--api-key-env", "ENDPOINT_TEST_KEY", "--server", "vllm"]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ name: "sim", model: "sim-policy", role: "policy", maxConcurrency: 64, hasApiKey: true, baseUrls: [cluster.urls[0]], protocols: ["stepwiser-chunk", "processbench-critic"], serverKind: "vllm" });
    expect((await database.db.endpoint.findUniqueOrThrow({ where: { name: "sim" } })).apiKey).toBe(SECRET);

    const listed = await cli(["list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: "sim", hasApiKey: true })]);

    const updated = await cli(["update", "sim", "--max-concurrency", "8", "--prompt-price", "0.15", "--completion-price", "0.6"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: "sim", maxConcurrency: 8, hasApiKey: true, promptPricePerMTokens: 0.15, cachedPromptPricePerMTokens: null, completionPricePerMTokens: 0.6 });
    const unpriced = await cli(["update", "sim", "--prompt-price", "none"]);
    expect(JSON.parse(unpriced.stdout)).toMatchObject({ promptPricePerMTokens: null, completionPricePerMTokens: 0.6 });
    const badPrice = await cli(["update", "sim", "--completion-price", "cheap"]);
    expect(badPrice.code).toBe(2);
    expect(badPrice.stderr).toMatch(/--completion-price.*not a price/);
    const declared = await cli(["update", "sim", "--protocol", "thinkprm,genprm", "--protocol", "outcome-pointwise"]);
    expect(declared.code, declared.stderr).toBe(0);
    expect(JSON.parse(declared.stdout)).toMatchObject({ protocols: ["thinkprm", "genprm", "outcome-pointwise"], maxConcurrency: 8 });
    const badProtocol = await cli(["update", "sim", "--protocol", "thinkprm,reward-magic"]);
    expect(badProtocol.code).toBe(2);
    expect(badProtocol.stderr).toMatch(/--protocol.*"reward-magic" is not a judge protocol; expected one of stepwiser-chunk, /);
    const twice = await cli(["update", "sim", "--protocol", "thinkprm", "--protocol", "thinkprm"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--protocol.*lists the same protocol twice/);

    const tested = await cli(["test", "sim"]);
    expect(tested.code, tested.stderr).toBe(0);
    expect(JSON.parse(tested.stdout)).toMatchObject({ name: "sim", ok: true, serverKind: "vllm", replicas: [{ baseUrl: cluster.urls[0], ok: true, servesModel: true, serverKind: "vllm" }] });

    const removed = await cli(["remove", "sim"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ ok: true, name: "sim" });
    expect(JSON.parse((await cli(["list"])).stdout)).toEqual([]);

    for (const output of [added, listed, updated, tested, removed]) expect(output.stdout + output.stderr).not.toContain(SECRET);
    const audit = await database.db.auditLog.findMany({ where: { entityType: "Endpoint" }, orderBy: { id: "asc" } });
    expect(audit.map((entry) => [entry.action, entry.actorId])).toEqual([
      ["endpoint.created", "admin-1"],
      ["endpoint.updated", "admin-1"],
      ["endpoint.updated", "admin-1"],
      ["endpoint.updated", "admin-1"],
      ["endpoint.deleted", "admin-1"],
    ]);
    expect(audit[3]?.before).toMatchObject({ protocols: ["stepwiser-chunk", "processbench-critic"] });
    expect(audit[3]?.after).toMatchObject({ protocols: ["thinkprm", "genprm", "outcome-pointwise"] });
    expect(JSON.stringify(audit.map((entry) => [entry.before, entry.after]))).not.toContain(SECRET);
  }, 60_000);

  it("bad input exits 2 naming the flag: a bad role, a duplicate name, an unknown endpoint, a missing variable", async () => {
    const base = ["add", "--name", "dup", "--model", "m", "--url", "http://127.0.0.1:9/v1"];
    const badRole = await cli([...base, "--role", "critic"]);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('"--role"');
    expect((await cli([...base, "--role", "judge"])).code).toBe(0);
    const duplicate = await cli([...base, "--role", "judge"]);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('"--name"');
    expect(duplicate.stderr).toContain('an endpoint named "dup" already exists');
    const badUrl = await cli(["update", "dup", "--url", "ftp://x/v1"]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('"--url"');
    const unknown = await cli(["remove", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no endpoint is named "nope"');
    const missingVar = await cli(["update", "dup", "--api-key-env", "NO_SUCH_VARIABLE_XYZ"]);
    expect(missingVar.code).toBe(2);
    expect(missingVar.stderr).toContain('"--api-key-env"');
    const badServer = await cli(["update", "dup", "--server", "tgi"]);
    expect(badServer.code).toBe(2);
    expect(badServer.stderr).toMatch(/--server.*"tgi" is not a server kind; expected one of auto, vllm, sglang, openai-compatible/);
    const noFlag = await cli(["add", "--name", "x", "--model", "m", "--url", "http://127.0.0.1:9/v1"]);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toContain('"--role": is required');
  }, 60_000);
});
