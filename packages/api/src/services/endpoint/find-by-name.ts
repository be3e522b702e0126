import type { ReadServiceArgs } from "../args";

/** The endpoint of that name (names are unique), or null: for hosts that name endpoints, not ids (the command line). */
export async function findEndpointByName({ db, input }: ReadServiceArgs<{ name: string }>): Promise<{ id: string; name: string } | null> {
  return db.endpoint.findUnique({ where: { name: input.name }, select: { id: true, name: true } });
}
