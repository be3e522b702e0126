import { openApiDocument } from "@stepwiser/api";

export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document of the REST API under /api/v1; reading it needs no sign-in. */
export function GET(request: Request) {
  const origin = process.env.STEPWISER_PUBLIC_URL ?? new URL(request.url).origin;
  return Response.json(openApiDocument(origin), { headers: { "cache-control": "public, max-age=60" } });
}
