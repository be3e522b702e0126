/**
 * Reads a `text/event-stream` body (WHATWG HTML, "Server-sent events") and
 * yields each event's data. The bytes are decoded as one UTF-8 stream, so a
 * character split across network chunks stays whole; lines end with `\r\n`,
 * `\n` or `\r`; a blank line ends an event; an event's `data:` lines are joined
 * with `\n`; comments and the other fields (`event`, `id`, `retry`) are ignored.
 * An event the stream ends inside, without its blank line, is dropped, as the
 * specification says.
 */
export async function* readSseData(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  const parser = new SseParser();
  for await (const chunk of body) {
    yield* parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  }
  yield* parser.feed(decoder.decode());
}

/** Incremental event-stream parser: feed decoded text in any pieces, get the data of each complete event. */
export class SseParser {
  /** The start of a line whose end has not arrived yet. */
  private partial = "";
  /** The last piece ended with `\r`: a `\n` opening the next piece belongs to that line end. */
  private afterCR = false;
  private data: string[] = [];

  feed(text: string): string[] {
    const events: string[] = [];
    if (text === "") return events;
    // A regex per call: its `lastIndex` is state, which concurrent streams must not share.
    const lineEnd = /[\r\n]/g;
    let start = this.afterCR && text.startsWith("\n") ? 1 : 0;
    this.afterCR = false;
    lineEnd.lastIndex = start;
    for (let match = lineEnd.exec(text); match; match = lineEnd.exec(text)) {
      const end = match.index;
      const line = this.partial + text.slice(start, end);
      this.partial = "";
      start = end + 1;
      if (text[end] === "\r") {
        if (text[start] === "\n") start += 1;
        else if (start === text.length) this.afterCR = true;
      }
      lineEnd.lastIndex = start;
      const data = this.line(line);
      if (data !== undefined) events.push(data);
    }
    this.partial += text.slice(start);
    return events;
  }

  /** Handles one complete line; returns the event's data when the line ends an event. */
  private line(line: string): string | undefined {
    if (line === "") {
      if (this.data.length === 0) return undefined;
      const data = this.data.join("\n");
      this.data = [];
      return data;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "data") return undefined;
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.data.push(value);
    return undefined;
  }
}
