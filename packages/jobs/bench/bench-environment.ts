import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, type Db } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { createSimModels, startSimCluster, type SimCluster, type SimModelsConfig } from "@stepwiser/inference/sim";
import { EndpointClients } from "../src";

export interface BenchEnvironment {
  db: Db;
  url: string;
  scratch: string;
  cluster: SimCluster;
  endpoints: EndpointClients;
  close(): Promise<void>;
}

/**
 * What every pipeline benchmark runs on: a throw-away embedded PostgreSQL with
 * the migrations applied, a 4-replica simulated cluster, and endpoint clients.
 */
export async function startBenchEnvironment(models: SimModelsConfig = {}): Promise<BenchEnvironment> {
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-bench-"));
  chmodSync(scratch, 0o755); // the postgres OS user must be able to enter it
  const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
  const url = server.url("postgres");
  await applyMigrations(url);
  const db = createDb(url);
  const cluster = await startSimCluster({ models: createSimModels(models), replicas: 4, timeScale: 1000 });
  const endpoints = new EndpointClients();
  return {
    db,
    url,
    scratch,
    cluster,
    endpoints,
    async close() {
      await endpoints.close();
      await cluster.stop();
      await db.$disconnect();
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
