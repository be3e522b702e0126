import { httpErrorOf, InvalidApiTokenError, queueLabelLines, userFromRequestHeaders, type SessionUser } from "@stepwiser/api";
import { can, rolesWith } from "@stepwiser/core";
import { serverDeps } from "~/server/deps";
import { jsonLinesResponse } from "~/server/json-lines-response";
import { ROUTE_ACCESS } from "~/server/route-access";

const ACCESS = ROUTE_ACCESS["/api/annotation-queues/[id]/labels"].GET;

export const dynamic = "force-dynamic";

/**
 * A queue's human labels as JSON lines, every row with its provenance
 * (author, assignment, time, superseded or current). Streamed page by page, so
 * a large queue never sits in memory. Scripts call it with an API token
 * (`Authorization: Bearer sw_…`), the browser with its session cookie; the
 * REST API serves the same lines at `/api/v1/annotation-queues/{id}/labels`.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const deps = serverDeps();
  let user: SessionUser | null;
  try {
    user = await userFromRequestHeaders(deps, request.headers);
  } catch (error) {
    if (error instanceof InvalidApiTokenError) return new Response(`${error.message}\n`, { status: 401 });
    throw error;
  }
  if (!user) return new Response("sign in first\n", { status: 401 });
  if (!can(user.role, ACCESS)) {
    return new Response(`exporting labels needs the ${ACCESS} capability (roles: ${rolesWith(ACCESS).join(", ")}); you are ${user.role}\n`, { status: 403 });
  }
  let lines: Awaited<ReturnType<typeof queueLabelLines>>;
  try {
    lines = await queueLabelLines({ db: deps.db, user, input: { queueId: id } });
  } catch (error) {
    const mapped = httpErrorOf(error);
    if (!mapped) throw error;
    return new Response(`${mapped.message}\n`, { status: mapped.status });
  }
  return jsonLinesResponse(lines, `human-labels-${id}.jsonl`);
}
