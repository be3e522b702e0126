import type { Db } from "@stepwiser/db";

/**
 * Who the command line acts as when it calls the API's services on the local database:
 * the first admin user (by creation date) whose account is not disabled, so its changes are audited like the browser's.
 */
export async function actingUser(db: Db) {
  const admin = await db.user.findFirst({ where: { role: "admin", disabledAt: null }, orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true } });
  if (!admin) throw new Error("no active admin user in this database: start the app once (it creates one) before changing endpoints or runs from the command line");
  return admin;
}
