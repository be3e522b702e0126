import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/** `Run.kind` from the `RunKind` enum to text: every stored kind kept as its name, and the enum gone. */
const MIGRATION = "20261203120000_run_kind_text";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string) => db.client.query(text);

  it("keeps every run's kind and takes a kind the enum never had", async () => {
    await q(`INSERT INTO "Run" (id, kind, status, config) VALUES ('r1', 'annotate', 'completed', '{}'), ('r2', 'export', 'queued', '{}'), ('r3', 'best_of_n', 'failed', '{}')`);
    await expect(q(`INSERT INTO "Run" (id, kind, status, config) VALUES ('r4', 'toy', 'queued', '{}')`)).rejects.toThrow(/invalid input value for enum/);
    expect(await applyMigrations(db.url)).toContain(MIGRATION);
    expect((await q(`SELECT id, kind FROM "Run" ORDER BY id`)).rows).toEqual([
      { id: "r1", kind: "annotate" },
      { id: "r2", kind: "export" },
      { id: "r3", kind: "best_of_n" },
    ]);
    expect((await q(`SELECT data_type FROM information_schema.columns WHERE table_name = 'Run' AND column_name = 'kind'`)).rows).toEqual([{ data_type: "text" }]);
    expect((await q(`SELECT count(*)::int AS n FROM pg_type WHERE typname = 'RunKind'`)).rows).toEqual([{ n: 0 }]);
    await q(`INSERT INTO "Run" (id, kind, status, config) VALUES ('r4', 'toy', 'queued', '{}')`);
  });
});
