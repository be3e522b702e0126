import { getDb } from "@stepwiser/db";

export const dynamic = "force-dynamic";

/** Liveness plus a database round trip; the launcher waits on it before printing the URL. */
export async function GET() {
  try {
    await getDb().$queryRaw`SELECT 1`;
    return Response.json({ ok: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return Response.json({ ok: false, error: `database unreachable: ${message}` }, { status: 503 });
  }
}
