import { chunkText, type ChunkLike } from "./chunk-like";
import { SegmentationError } from "./segmentation-error";
import { excerptAt, isBlank, leadingWhitespaceLength, positionAt } from "./text-position";

export const CHUNK_OPEN_TAG = "<chunk>";
export const CHUNK_CLOSE_TAG = "</chunk>";
/** What `serializeChunkTags` puts between chunks; any whitespace would parse the same. */
export const DEFAULT_CHUNK_TAG_SEPARATOR = "\n";

const CHUNK_TAGS = /<\/?chunk>/g;
const FIRST_CHUNK_TAG = /<\/?chunk>/;

/** One chunk as written between its tags, located in the tagged text. */
export interface TaggedChunk {
  index: number;
  /** Exactly what stands between the tags, outer whitespace included. */
  text: string;
  /** text === taggedText.slice(contentStart, contentEnd) */
  contentStart: number;
  contentEnd: number;
}

/**
 * Reads `<chunk>…</chunk>` output (a segmenter's or a self-segmenting
 * policy's). Only whitespace may stand outside the tags; tags are matched
 * exactly (lowercase, no attributes), so `<Chunk>` or `< chunk>` is text and
 * fails loudly instead of being guessed at.
 */
export function parseChunkTags(tagged: string): TaggedChunk[] {
  const chunks: TaggedChunk[] = [];
  let openTagAt: number | undefined;
  let outsideFrom = 0;
  for (const match of tagged.matchAll(CHUNK_TAGS)) {
    const tagAt = match.index;
    const isOpenTag = match[0] === CHUNK_OPEN_TAG;
    if (openTagAt === undefined) {
      rejectTextOutsideChunks(tagged, outsideFrom, tagAt, chunks.length);
      if (!isOpenTag) {
        throw new SegmentationError("unmatched-close-tag", `${CHUNK_CLOSE_TAG} without an open ${CHUNK_OPEN_TAG}`, {
          chunked: positionAt(tagged, tagAt),
          chunkedText: "tagged text",
          excerpts: { chunked: excerptAt(tagged, tagAt) },
        });
      }
      openTagAt = tagAt;
    } else {
      if (isOpenTag) {
        const opened = positionAt(tagged, openTagAt);
        throw new SegmentationError(
          "nested-chunk",
          `${CHUNK_OPEN_TAG} inside a chunk that is still open (opened at line ${opened.line}, column ${opened.column}); chunks cannot nest`,
          {
            chunkIndex: chunks.length,
            chunked: positionAt(tagged, tagAt),
            chunkedText: "tagged text",
            excerpts: { chunked: excerptAt(tagged, tagAt) },
          },
        );
      }
      const contentStart = openTagAt + CHUNK_OPEN_TAG.length;
      chunks.push({ index: chunks.length, text: tagged.slice(contentStart, tagAt), contentStart, contentEnd: tagAt });
      openTagAt = undefined;
    }
    outsideFrom = tagAt + match[0].length;
  }
  if (openTagAt !== undefined) {
    throw new SegmentationError("unclosed-chunk", `${CHUNK_OPEN_TAG} is never closed with ${CHUNK_CLOSE_TAG}`, {
      chunkIndex: chunks.length,
      chunked: positionAt(tagged, openTagAt),
      chunkedText: "tagged text",
      excerpts: { chunked: excerptAt(tagged, openTagAt) },
    });
  }
  rejectTextOutsideChunks(tagged, outsideFrom, tagged.length, chunks.length);
  if (chunks.length === 0) {
    throw new SegmentationError("no-chunks", `no ${CHUNK_OPEN_TAG}…${CHUNK_CLOSE_TAG} found (the text is empty or blank)`);
  }
  return chunks;
}

function rejectTextOutsideChunks(tagged: string, from: number, to: number, chunksBefore: number): void {
  const gap = tagged.slice(from, to);
  if (isBlank(gap)) return;
  const at = from + leadingWhitespaceLength(gap);
  const where =
    chunksBefore === 0 ? "before the first chunk" : to === tagged.length ? "after the last chunk" : `between chunk ${chunksBefore - 1} and chunk ${chunksBefore}`;
  throw new SegmentationError(
    "text-outside-chunk",
    `text outside the chunk tags ${where}: ${excerptAt(tagged, at)}; only whitespace may stand between chunks`,
    { chunked: positionAt(tagged, at), chunkedText: "tagged text", excerpts: { chunked: excerptAt(tagged, at) } },
  );
}

/**
 * Writes chunks as `<chunk>text</chunk>` with each text unaltered, so
 * `parseChunkTags(serializeChunkTags(chunks))` gives the texts back exactly.
 * A text that holds a chunk tag itself would not read back: it is refused.
 */
export function serializeChunkTags(chunks: readonly ChunkLike[], separator = DEFAULT_CHUNK_TAG_SEPARATOR): string {
  if (!isBlank(separator)) throw new RangeError(`the separator between chunk tags must be whitespace, got ${JSON.stringify(separator)}`);
  return chunks
    .map((chunk, index) => {
      const text = chunkText(chunk);
      const tag = FIRST_CHUNK_TAG.exec(text);
      if (tag) {
        throw new SegmentationError("tag-inside-chunk", `the chunk text holds ${JSON.stringify(tag[0])}, which cannot be written inside chunk tags`, {
          chunkIndex: index,
          chunked: positionAt(text, tag.index),
          chunkedText: "chunk text",
          excerpts: { chunked: excerptAt(text, tag.index) },
        });
      }
      return `${CHUNK_OPEN_TAG}${text}${CHUNK_CLOSE_TAG}`;
    })
    .join(separator);
}
