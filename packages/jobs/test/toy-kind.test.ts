import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSimWorldDataset, EndpointClients, executeRun, readStoredConfig, readSummary, RUN_KINDS, unitKindsOf } from "../src";
import { toyKind } from "./toy-kind/kind";

/**
 * A new run kind is one folder (here test/toy-kind/) and one registry line: the
 * engine plans, works and summarises it, and its stored config and summary read
 * through its own schemas, with nothing else of the product changed (`Run.kind`
 * is text, so the database needs no new value).
 */
describe("a run kind added as one folder and a registry line", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("is executed by the engine and read by its own schemas", async () => {
    const { db } = database;
    // The registry line.
    const kinds = unitKindsOf({ ...RUN_KINDS, toy: toyKind });
    const { datasetId } = await createSimWorldDataset(db, { name: "toy", problems: 3, seed: 4 });
    const config = toyKind.submitSchema.parse({ datasetId });
    const { id } = await db.run.create({ data: { kind: "toy", config, datasetId } });
    await executeRun(db, id, kinds, { endpoints: new EndpointClients() });

    const run = await db.run.findUniqueOrThrow({ where: { id } });
    expect({ kind: run.kind, status: run.status, error: run.error }).toEqual({ kind: "toy", status: "completed", error: null });
    const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    const solutions = await db.segmentation.count({ where: { solution: { datasetId } } });
    expect(readSummary(toyKind.summarySchema, run.summary)).toEqual({ solutions, chunks });
    expect(readStoredConfig(run, toyKind.storedSchema)).toEqual({ datasetId, cap: 1000 });
    expect(toyKind.facts(readStoredConfig(run, toyKind.storedSchema))).toEqual(["cap 1000"]);
  });
});
