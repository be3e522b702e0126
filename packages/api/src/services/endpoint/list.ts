import type { ServiceContext } from "../args";
import { cacheReports } from "./cache-report";
import { publicEndpointSelect, toPublicEndpoint } from "./fields";

/**
 * Every endpoint, policy first then judge then segmenter, by name; the key itself
 * never leaves the server. A priced endpoint carries what its runs reported of
 * cached prompt tokens (`cacheReport`, see `cacheReports`).
 */
export async function listEndpoints({ db }: ServiceContext) {
  const rows = await db.endpoint.findMany({ orderBy: [{ role: "asc" }, { name: "asc" }], select: publicEndpointSelect });
  const reports = await cacheReports(db, rows);
  return rows.map((row) => ({ ...toPublicEndpoint(row), cacheReport: reports.get(row.id) ?? null }));
}
