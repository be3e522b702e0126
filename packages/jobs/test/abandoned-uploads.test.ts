import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWorker, storeFile } from "../src";
import { deleteAbandonedUploads } from "../src/files/abandoned-uploads";

describe("abandoned uploads", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  const TWO_DAYS_AGO = () => new Date(Date.now() - 48 * 3600_000);
  const bytes = (n: number) => [new Uint8Array(n).fill(65)];

  async function storedAt(purpose: "upload" | "export", createdAt?: Date) {
    const file = await storeFile(database.db, { fileName: `${purpose}.jsonl`, purpose }, bytes(1000));
    if (createdAt) await database.db.storedFile.update({ where: { id: file.id }, data: { createdAt } });
    return file.id;
  }

  it("deletes only old uploads that no run took as input, with their parts", async () => {
    const { db } = database;
    const previewedOnly = await storedAt("upload", TWO_DAYS_AGO());
    const imported = await storedAt("upload", TWO_DAYS_AGO());
    await db.run.create({ data: { kind: "import", config: {}, status: "completed", inputFileId: imported } });
    const recent = await storedAt("upload");
    const oldExport = await storedAt("export", TWO_DAYS_AGO());

    expect(await deleteAbandonedUploads(db, 24)).toEqual({ files: 1, bytes: 1000 });
    const left = new Set((await db.storedFile.findMany({ select: { id: true } })).map((f) => f.id));
    expect(left).toEqual(new Set([imported, recent, oldExport]));
    expect(await db.storedFilePart.count({ where: { fileId: previewedOnly } })).toBe(0);
    expect(await deleteAbandonedUploads(db, 24)).toEqual({ files: 0, bytes: 0 });
  });

  it("a worker cleans up when it starts, unless retention is off", async () => {
    const { db } = database;
    const abandoned = await storedAt("upload", TWO_DAYS_AGO());
    const kept = await startWorker({ databaseUrl: database.url, db, log: () => {}, settings: { workerId: "keeps-uploads", uploadRetentionHours: 0, runJoinSeconds: 0 } });
    await kept.stop();
    expect(await db.storedFile.count({ where: { id: abandoned } })).toBe(1);

    const lines: string[] = [];
    const worker = await startWorker({ databaseUrl: database.url, db, log: (line) => lines.push(line), settings: { workerId: "cleans-uploads", uploadRetentionHours: 24, runJoinSeconds: 0 } });
    try {
      await expect.poll(() => db.storedFile.count({ where: { id: abandoned } }), { timeout: 10_000 }).toBe(0);
      expect(lines.some((line) => line.includes("deleted 1 upload(s)"))).toBe(true);
    } finally {
      await worker.stop();
    }
  });
});
