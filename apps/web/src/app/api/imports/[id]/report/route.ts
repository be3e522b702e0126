import { handleImportReportDownload } from "~/server/file-routes";
import { serverDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

/** `GET /api/imports/{runId}/report`: an import run's report (records left out as invalid or ignored) as JSON Lines, streamed. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleImportReportDownload(serverDeps(), request, id);
}
