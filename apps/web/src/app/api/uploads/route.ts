import { handleUpload } from "~/server/file-routes";
import { serverDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

/**
 * `POST /api/uploads?fileName=NAME` with the file's bytes as the body (not a
 * form): stored as it streams in, answered with `{ fileId, fileName, sizeBytes,
 * sha256 }`. The file id is what `import.preview` and `import.start` take.
 */
export async function POST(request: Request) {
  return handleUpload(serverDeps(), request);
}
