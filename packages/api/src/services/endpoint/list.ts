import type { ServiceContext } from "../args";
import { publicEndpointSelect, toPublicEndpoint } from "./fields";

/** Every endpoint, policy first then judge then segmenter, by name; the key itself never leaves the server. */
export async function listEndpoints({ db }: ServiceContext) {
  const rows = await db.endpoint.findMany({ orderBy: [{ role: "asc" }, { name: "asc" }], select: publicEndpointSelect });
  return rows.map(toPublicEndpoint);
}
