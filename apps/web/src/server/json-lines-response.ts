import { attachmentDisposition } from "../lib/file-names";

/**
 * A download of JSON Lines pulled from `lines` as the client reads the body,
 * one object per line, never held whole; a client that goes away releases the
 * generator (and the database reads behind it).
 */
export function jsonLinesResponse(lines: AsyncGenerator<unknown>, fileName: string, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": attachmentDisposition(fileName),
      ...headers,
    },
  });
}
