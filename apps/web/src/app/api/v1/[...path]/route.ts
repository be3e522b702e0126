import { handleRestRequest } from "@stepwiser/api";
import { serverDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ path: string[] }> };

/**
 * The REST API (`/api/v1/…`): every operation of the table in
 * packages/api/src/rest/operations.ts, each checking its own capability
 * (`ROUTE_ACCESS` says "per operation"). Described by /api/openapi.json.
 */
async function serve(request: Request, { params }: Params) {
  const { path } = await params;
  return handleRestRequest(request, serverDeps(), `/${path.map(encodeURIComponent).join("/")}`);
}

export const GET = serve;
export const POST = serve;
