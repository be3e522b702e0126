import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalDatabase } from "../src/local";

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe("the local database", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-local-db-"));
    await chmod(scratch, 0o755); // the postgres OS user must be able to enter it
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("uses DATABASE_URL when it is set and never creates an embedded cluster", async () => {
    const dataDir = path.join(scratch, "unused");
    const database = await openLocalDatabase({ dataDir, env: { DATABASE_URL: "postgres://u:p@db.example:5432/x" } });
    expect(database).toMatchObject({ url: "postgres://u:p@db.example:5432/x", origin: "external" });
    await database.release();
    expect(existsSync(dataDir)).toBe(false);
  });

  it("starts an embedded server once, shares it while it runs, and keeps the data across restarts", async () => {
    const dataDir = path.join(scratch, "data");
    const first = await openLocalDatabase({ dataDir, env: {} });
    expect(first.origin).toBe("embedded");
    await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('survives a restart')");

    const second = await openLocalDatabase({ dataDir, env: {} });
    expect(second).toMatchObject({ origin: "shared", url: first.url });
    await second.release(); // a sharer's release leaves the server running
    expect((await query(first.url, "SELECT count(*)::int AS n FROM kept")).rows[0].n).toBe(1);

    await first.release();
    expect(existsSync(path.join(dataDir, "runtime.json"))).toBe(false);
    await expect(query(first.url, "SELECT 1")).rejects.toThrow();

    const restarted = await openLocalDatabase({ dataDir, env: {} });
    try {
      expect(restarted.origin).toBe("embedded");
      const rows = (await query(restarted.url, "SELECT note FROM kept")).rows;
      expect(rows).toEqual([{ note: "survives a restart" }]);
    } finally {
      await restarted.release();
    }
  });
});
