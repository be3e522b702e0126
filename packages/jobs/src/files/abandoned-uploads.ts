import type { Db } from "@stepwiser/db";

/**
 * Deletes uploads no run took as its input once they are older than
 * `olderThanHours`: files that were only previewed, or whose upload was cut
 * off. Uploads can be gigabytes, stored in the database, so leaving them would
 * grow it for good. An upload an import or batch run read stays as that run's
 * input. Safe to run from several workers at once.
 */
export async function deleteAbandonedUploads(db: Db, olderThanHours: number): Promise<{ files: number; bytes: number }> {
  const deleted = await db.$queryRaw<{ sizeBytes: bigint }[]>`
    DELETE FROM "StoredFile" f
     WHERE f.purpose = 'upload'
       AND f."createdAt" < now() - make_interval(secs => ${olderThanHours * 3600}::float8)
       AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."inputFileId" = f.id)
    RETURNING f."sizeBytes"`;
  return { files: deleted.length, bytes: deleted.reduce((sum, row) => sum + Number(row.sizeBytes), 0) };
}
