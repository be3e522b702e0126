/**
 * TextEncoder/TextDecoder exist in every runtime the studio targets (Node,
 * browsers, workers), but `core` compiles without DOM or Node typings so that
 * no I/O API is visible here. These are the only two text APIs it needs, typed
 * locally instead of widening the whole package's globals.
 */
interface Utf8Decoder {
  decode(bytes: Uint8Array): string;
}
interface Utf8Encoder {
  encode(text: string): Uint8Array;
}
interface TextCodecGlobals {
  TextDecoder: new (label: "utf-8", options: { fatal: boolean; ignoreBOM: boolean }) => Utf8Decoder;
  TextEncoder: new () => Utf8Encoder;
}

const codecs = globalThis as unknown as TextCodecGlobals;
const encoder = new codecs.TextEncoder();

/** A decoder that throws on invalid UTF-8 and drops a leading byte-order mark. */
export function strictUtf8Decoder(): Utf8Decoder {
  return new codecs.TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
}

/** A decoder that replaces invalid UTF-8 (a head cut inside a character) and drops a leading byte-order mark. */
export function lenientUtf8Decoder(): Utf8Decoder {
  return new codecs.TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
}

export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}
