import { handleDownload } from "~/server/file-routes";
import { serverDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

/** `GET /api/files/{id}`: a stored file (an export's output or an upload), streamed part by part. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleDownload(serverDeps(), request, id);
}
