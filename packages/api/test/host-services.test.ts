import { NotFoundError } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { countDatasetSolutions } from "../src/services/dataset";
import { findEndpointByName } from "../src/services/endpoint";
import { listExportFiles } from "../src/services/export";
import { getRunState } from "../src/services/run";
import { actingUser } from "../src/services/user";

/** The services the command line calls directly, through the barrels its package exports name (real Postgres). */
describe("services for hosts outside the API", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("acts as the oldest admin whose account is not disabled, and says so when there is none", async () => {
    const { db } = database;
    await expect(actingUser({ db })).rejects.toThrow(
      new Error("no active admin user in this database: start the app once (it creates one) before changing endpoints or runs from the command line"),
    );
    const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
    await db.user.create({ data: { id: "viewer-first", email: "v@host.test", name: "Vic", role: "viewer", createdAt: at(1) } });
    await db.user.create({ data: { id: "admin-disabled", email: "d@host.test", name: "Dee", role: "admin", createdAt: at(2), disabledAt: at(3) } });
    await db.user.create({ data: { id: "admin-later", email: "l@host.test", name: "Lou", role: "admin", createdAt: at(5) } });
    await db.user.create({ data: { id: "admin-oldest", email: "o@host.test", name: "Ola", role: "admin", createdAt: at(4) } });
    expect(await actingUser({ db })).toEqual({ id: "admin-oldest", email: "o@host.test", name: "Ola", role: "admin" });
  });

  it("reads a run's state with its token counts as numbers; a missing run is not found", async () => {
    const { db } = database;
    await expect(getRunState({ db, input: { id: "no-such-run" } })).rejects.toThrow(new NotFoundError("run no-such-run does not exist"));
    const run = await db.run.create({
      data: { kind: "export", config: {}, name: "export · x", tags: ["t"], status: "completed", unitsTotal: 3, unitsDone: 3, promptTokens: 7n, completionTokens: 11n, cachedTokens: 2n, summary: { report: null } },
    });
    expect(await getRunState({ db, input: { id: run.id } })).toMatchObject({
      id: run.id,
      kind: "export",
      name: "export · x",
      notes: "",
      tags: ["t"],
      status: "completed",
      datasetId: null,
      unitsTotal: 3,
      unitsDone: 3,
      unitsFailed: 0,
      requests: 0,
      promptTokens: 7,
      completionTokens: 11,
      cachedTokens: 2,
      error: null,
      summary: { report: null },
    });
  });

  it("lists an export run's complete files by name; any other run is not an export run", async () => {
    const { db } = database;
    const exportRun = await db.run.create({ data: { kind: "export", config: {}, status: "completed" } });
    const done = new Date();
    await db.storedFile.create({ data: { fileName: "train.parquet", purpose: "export", producedByRunId: exportRun.id, sizeBytes: 20n, sha256: "b".repeat(64), completedAt: done } });
    await db.storedFile.create({ data: { fileName: "half-written.parquet", purpose: "export", producedByRunId: exportRun.id } });
    await db.storedFile.create({ data: { fileName: "test.parquet", purpose: "export", producedByRunId: exportRun.id, sizeBytes: 10n, sha256: "a".repeat(64), completedAt: done } });
    const files = await listExportFiles({ db, input: { runId: exportRun.id } });
    expect(files.map(({ id: _id, ...file }) => file)).toEqual([
      { fileName: "test.parquet", sizeBytes: 10, sha256: "a".repeat(64) },
      { fileName: "train.parquet", sizeBytes: 20, sha256: "b".repeat(64) },
    ]);

    const annotate = await db.run.create({ data: { kind: "annotate", config: {} } });
    await expect(listExportFiles({ db, input: { runId: annotate.id } })).rejects.toThrow(new NotFoundError(`export run ${annotate.id} does not exist`));
    await expect(listExportFiles({ db, input: { runId: "no-such-run" } })).rejects.toThrow(new NotFoundError("export run no-such-run does not exist"));
  });

  it("finds an endpoint by its name, and nothing by another", async () => {
    const { db } = database;
    const endpoint = await db.endpoint.create({ data: { name: "judge-a", model: "m", role: "judge", baseUrls: ["http://127.0.0.1:1/v1"] } });
    expect(await findEndpointByName({ db, input: { name: "judge-a" } })).toEqual({ id: endpoint.id, name: "judge-a" });
    expect(await findEndpointByName({ db, input: { name: "judge-b" } })).toBeNull();
  });

  it("counts a dataset's solutions (none for a dataset that holds none or is gone)", async () => {
    const { db } = database;
    const dataset = await db.dataset.create({ data: { name: "counted", source: "test" } });
    const problem = await db.problem.create({ data: { datasetId: dataset.id, textHash: "h1", text: "What is 2 + 2?" } });
    for (const externalId of ["s1", "s2"]) {
      await db.solution.create({ data: { datasetId: dataset.id, problemId: problem.id, externalId, generator: "g", text: "4" } });
    }
    const empty = await db.dataset.create({ data: { name: "empty", source: "test" } });
    expect(await countDatasetSolutions({ db, input: { datasetId: dataset.id } })).toBe(2);
    expect(await countDatasetSolutions({ db, input: { datasetId: empty.id } })).toBe(0);
    expect(await countDatasetSolutions({ db, input: { datasetId: "no-such-dataset" } })).toBe(0);
  });
});
