import type { ServiceContext } from "../args";

/** Every account, oldest first, with its role. */
export async function listUsers({ db }: ServiceContext) {
  return db.user.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true, createdAt: true } });
}
