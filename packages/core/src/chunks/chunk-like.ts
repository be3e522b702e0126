/** Chunks arrive as bare strings (parsed tags, tests) or as located chunks. */
export type ChunkLike = string | { readonly text: string };

export function chunkText(chunk: ChunkLike): string {
  return typeof chunk === "string" ? chunk : chunk.text;
}
