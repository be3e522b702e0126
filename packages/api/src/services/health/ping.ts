import type { ServiceContext } from "../args";

/** One round trip to the database: the API answers only while it can reach it. */
export async function pingDatabase({ db }: Pick<ServiceContext, "db">) {
  await db.$queryRaw`SELECT 1`;
  return { ok: true as const, time: new Date() };
}
