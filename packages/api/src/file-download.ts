import { attachmentDisposition, safeContentType } from "./services/file/file-names";
import type { openStoredFile } from "./services/file/stored-file";

type OpenedFile = Awaited<ReturnType<typeof openStoredFile>>;

/**
 * A stored file as a download, its parts read from the database as the client
 * reads the body (a client that goes away stops the reads): an attachment under
 * its name, never sniffed or rendered as a page of this origin. The web app's
 * `GET /api/files/{id}` serves it with the stored content type; the REST API's
 * `GET /api/v1/files/{id}` as `application/octet-stream`, as its document says.
 */
export function storedFileResponse(file: OpenedFile, contentType = safeContentType(file.contentType)): Response {
  const { parts } = file;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await parts.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": contentType,
      "content-length": String(file.sizeBytes),
      "content-disposition": attachmentDisposition(file.fileName),
      "x-content-type-options": "nosniff",
      // Whatever a file holds, it is data: never rendered as a page of this origin.
      "content-security-policy": "sandbox",
      "cache-control": "private, no-store",
    },
  });
}
