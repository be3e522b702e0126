interface ChunkView {
  id: string;
  index: number;
  text: string;
  startOffset: number;
  endOffset: number;
}

/**
 * Chunks of one segmentation, in order. Model output is shown as plain text (React escapes
 * it); the chunk at the source's first-error index is marked, and those after it dimmed,
 * since ProcessBench says nothing about steps past the first error.
 */
export function ChunkList({ chunks, firstErrorIndex }: { chunks: ChunkView[]; firstErrorIndex: number | null }) {
  return (
    <ol className="space-y-2">
      {chunks.map((chunk) => {
        const isFirstError = firstErrorIndex !== null && chunk.index === firstErrorIndex;
        const afterError = firstErrorIndex !== null && firstErrorIndex >= 0 && chunk.index > firstErrorIndex;
        return (
          <li
            key={chunk.id}
            id={`chunk-${chunk.index}`}
            data-testid="chunk"
            data-first-error={isFirstError ? "true" : undefined}
            className={`scroll-mt-4 rounded-lg border bg-white p-3 shadow-sm ${
              isFirstError ? "border-red-400 ring-1 ring-red-300" : "border-slate-200"
            } ${afterError ? "opacity-60" : ""}`}
          >
            <div className="mb-1 flex items-center gap-2 text-xs text-slate-500">
              <span className="font-mono">#{chunk.index}</span>
              <span className="tabular-nums">
                chars {chunk.startOffset}–{chunk.endOffset}
              </span>
              {isFirstError && (
                <span data-testid="first-error-marker" className="rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">
                  first error (source label)
                </span>
              )}
            </div>
            <p className="text-sm whitespace-pre-wrap">{chunk.text}</p>
          </li>
        );
      })}
    </ol>
  );
}
