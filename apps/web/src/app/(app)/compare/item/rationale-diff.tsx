"use client";

import { wordDiff } from "@stepwiser/core";
import { useMemo } from "react";

const CLASSES = {
  equal: "",
  delete: "rounded-sm bg-red-100 text-red-900 line-through decoration-red-400",
  insert: "rounded-sm bg-green-100 text-green-900",
} as const;

/**
 * Word-level diff of two rationales as plain text spans: model output is
 * untrusted, so it is only ever React text content, never parsed as HTML or
 * Markdown here. Deleted words are A's, inserted words B's.
 */
export function RationaleDiff({ a, b }: { a: string; b: string }) {
  const parts = useMemo(() => wordDiff(a, b), [a, b]);
  return (
    <div className="font-mono text-xs leading-relaxed whitespace-pre-wrap break-words text-slate-800" data-testid="rationale-diff">
      {parts.map((part, i) =>
        part.op === "equal" ? (
          <span key={i} data-op="equal">
            {part.text}
          </span>
        ) : part.op === "delete" ? (
          <del key={i} data-op="delete" className={CLASSES.delete}>
            {part.text}
          </del>
        ) : (
          <ins key={i} data-op="insert" className={`no-underline ${CLASSES.insert}`}>
            {part.text}
          </ins>
        ),
      )}
    </div>
  );
}
