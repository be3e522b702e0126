import { ensureAdminUser } from "@stepwiser/api";
import { createDb } from "@stepwiser/db";
import { applyMigrations } from "@stepwiser/db/migrations";

/**
 * `npm run setup`: prepares an external PostgreSQL (DATABASE_URL) for a
 * deployment of many processes: applies the migrations and creates the first
 * admin. Run it once per release before starting web apps and workers; it is
 * safe to run again (applied migrations and an existing admin are left alone).
 */
async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: setup prepares the external database it names");
  const applied = await applyMigrations(url);
  process.stderr.write(applied.length ? `» applied migrations: ${applied.join(", ")}\n` : "» migrations: up to date\n");
  const db = createDb(url, { poolSize: 2 });
  try {
    const admin = await ensureAdminUser(db, { email: process.env.STEPWISER_ADMIN_EMAIL ?? "admin@stepwiser.local", password: process.env.STEPWISER_ADMIN_PASSWORD });
    if (admin.created) process.stderr.write(`» created admin ${admin.email} with password: ${admin.password}\n  (shown once; or set STEPWISER_ADMIN_PASSWORD)\n`);
    else process.stderr.write("» an admin exists already\n");
  } finally {
    await db.$disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`✖ ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
