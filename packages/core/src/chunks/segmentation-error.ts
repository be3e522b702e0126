import { formatPosition, type TextPosition } from "./text-position";

export type SegmentationErrorKind =
  /** The tagged text holds no `<chunk>` at all. */
  | "no-chunks"
  /** Non-whitespace text before, between or after the chunk tags. */
  | "text-outside-chunk"
  /** A `<chunk>` opened while another is still open. */
  | "nested-chunk"
  /** The text ends inside a chunk. */
  | "unclosed-chunk"
  /** A `</chunk>` with no open chunk. */
  | "unmatched-close-tag"
  /** Chunk text that itself holds a chunk tag cannot be written as tags and read back. */
  | "tag-inside-chunk"
  /** A chunk with nothing but whitespace: it has no step to judge. */
  | "empty-chunk"
  /** A chunk's text differs from the original at some character. */
  | "diverges"
  /** Text of the original that no chunk covers (after the last chunk). */
  | "uncovered-text";

/** Which text `SegmentationErrorDetails.chunked` counts in. */
export type ChunkedTextKind = "tagged text" | "chunk text";

export interface SegmentationErrorDetails {
  /** 0-based, like `LocatedChunk.index`. */
  chunkIndex?: number;
  /** Position in the chunked side: the tagged output when it is known, else the chunk's own text. */
  chunked?: TextPosition;
  chunkedText?: ChunkedTextKind;
  /** Position in the original solution (reconstruction errors only). */
  original?: TextPosition;
  /** Escaped excerpts starting at the positions above. */
  excerpts?: { chunked?: string; original?: string };
}

/**
 * A segmentation that cannot be trusted: malformed chunk tags, or chunks that
 * do not reproduce the original solution. Never repaired, always located, so
 * a bad segmenter output can be inspected where it went wrong.
 */
export class SegmentationError extends Error {
  override readonly name = "SegmentationError";
  constructor(
    readonly kind: SegmentationErrorKind,
    readonly reason: string,
    readonly details: SegmentationErrorDetails = {},
  ) {
    super(formatSegmentationError(reason, details));
  }
}

export function formatSegmentationError(reason: string, details: SegmentationErrorDetails): string {
  const where: string[] = [];
  if (details.chunkIndex !== undefined) where.push(`chunk ${details.chunkIndex}`);
  if (details.chunked) where.push(`${details.chunkedText ?? "tagged text"} ${formatPosition(details.chunked)}`);
  if (details.original) where.push(`original offset ${details.original.offset} (${formatPosition(details.original)})`);
  return where.length ? `${where.join(", ")}: ${reason}` : reason;
}
