import { researchReadProcedure } from "../../trpc";
import { publicEndpointSelect, toPublicEndpoint } from "./fields";

/** Every endpoint, policy first then judge then segmenter, by name; the key itself never leaves the server. */
export const list = researchReadProcedure.query(async ({ ctx }) => {
  const rows = await ctx.db.endpoint.findMany({ orderBy: [{ role: "asc" }, { name: "asc" }], select: publicEndpointSelect });
  return rows.map(toPublicEndpoint);
});
