import type { SessionUser } from "../../auth/session-user";
import type { ServiceContext } from "../args";

/**
 * Who a host without sign-in (the command line, on the local database) acts as when it
 * calls the services: the first admin user (by creation date) whose account is not
 * disabled, so its changes are audited like the browser's. With no such user it throws a
 * plain Error: nothing the caller gave is wrong, so it is no domain error (no status fits).
 */
export async function actingUser({ db }: Pick<ServiceContext, "db">): Promise<SessionUser> {
  const admin = await firstActiveAdmin({ db });
  if (!admin) throw new Error("no active admin user in this database: start the app once (it creates one) before changing endpoints or runs from the command line");
  return admin;
}

/**
 * Who a run, import or export the command line creates is recorded as created by: the user it
 * acts as (`actingUser`). A database without an admin yet (the app never started on it) still
 * takes work from the command line, its creator unknown (null).
 */
export async function actingCreatorId({ db }: Pick<ServiceContext, "db">): Promise<string | null> {
  return (await firstActiveAdmin({ db }))?.id ?? null;
}

function firstActiveAdmin({ db }: Pick<ServiceContext, "db">): Promise<SessionUser | null> {
  return db.user.findFirst({ where: { role: "admin", disabledAt: null }, orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true } });
}
