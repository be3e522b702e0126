import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUTS, ReplicaTransport, readSseData } from "../../src/client";

/**
 * A server that writes a fixed list of byte chunks as a text/event-stream,
 * flushing and pausing between them so each arrives as its own network chunk.
 */
async function serveChunks(chunks: Uint8Array[]): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    void (async () => {
      for (const chunk of chunks) {
        response.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

async function collect(url: string): Promise<string[]> {
  const transport = new ReplicaTransport(url, 1, DEFAULT_TIMEOUTS);
  try {
    const events: string[] = [];
    for await (const data of transport.postStream("/completions", { stream: true })) events.push(data);
    return events;
  } finally {
    await transport.close();
  }
}

const encode = (text: string) => new TextEncoder().encode(text);

describe("server-sent event stream reader", () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  let crlfUrl: string;
  beforeAll(async () => {
    // "≤" is 3 bytes (e2 89 a4); the first event's bytes are cut after its first byte.
    const first = encode('data: {"text":"x ≤ y"}\r\n\r\n');
    const cut = first.indexOf(0xe2) + 1;
    const { url, server } = await serveChunks([
      first.slice(0, cut),
      first.slice(cut),
      encode('data: {"text":"second"}\r\n\r\ndata: [DONE]\r\n\r\n'),
    ]);
    servers.push(server);
    crlfUrl = url;
  });

  it("decodes a multi-byte character split across chunks and splits events on \\r\\n\\r\\n", async () => {
    const events = await collect(crlfUrl);
    expect(events).toEqual(['{"text":"x ≤ y"}', '{"text":"second"}', "[DONE]"]);
    expect(events).toHaveLength(3);
    expect(events.join("")).not.toContain("\uFFFD");
  });

  it("keeps a character split across chunks whole with \\n\\n separators too", async () => {
    const bytes = encode("data: ≤\n\ndata: [DONE]\n\n");
    const { url, server } = await serveChunks([bytes.slice(0, 7), bytes.slice(7)]);
    servers.push(server);
    expect(await collect(url)).toEqual(["≤", "[DONE]"]);
  });

  it("accepts \\n, \\r\\n and bare \\r line endings, a separator split across chunks, and multi-line data", async () => {
    const { url, server } = await serveChunks([
      encode("data: one\n\n"),
      encode("data: two\r"),
      encode("\n\r\n"),
      encode(": a comment\rdata: three\r\r"),
      encode("data: four-a\r\ndata: four-b\r\n\r\n"),
      encode("data: [DONE]\n\n"),
    ]);
    servers.push(server);
    expect(await collect(url)).toEqual(["one", "two", "three", "four-a\nfour-b", "[DONE]"]);
  });
});

describe("readSseData", () => {
  async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      yield bytes.slice(from, cut);
      from = cut;
    }
  }
  const read = async (bytes: Uint8Array, cuts: number[]) => {
    const events: string[] = [];
    for await (const data of readSseData(pieces(bytes, cuts))) events.push(data);
    return events;
  };

  it("gives the same events wherever the byte stream is cut", async () => {
    const bytes = encode("data: a ≤ b\r\n\r\n:keep-alive\r\rdata:→x\rdata: y\r\r\ndata: [DONE]\n\npartial");
    const expected = ["a ≤ b", "→x\ny", "[DONE]"];
    expect(await read(bytes, [])).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++) expect(await read(bytes, [cut])).toEqual(expected);
    expect(await read(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1))).toEqual(expected);
  });
});
