"use client";

import { useState } from "react";
import { RichText, type RichTextMode } from "~/components/rich-text";
import { Card, CardTitle } from "~/components/ui";
import { TruncatedBadge } from "./judge-cell";
import type { SolutionJudgementView } from "./solution-judgements";

/** Judges that answered for the whole solution: each run's prediction, and every sample with what was read from it. */
export function SolutionJudgementsPanel({ views, textMode }: { views: SolutionJudgementView[]; textMode: RichTextMode }) {
  const [open, setOpen] = useState<string | null>(null);
  if (views.length === 0) return null;
  return (
    <Card as="section" aria-labelledby="solution-judges-heading">
      <CardTitle id="solution-judges-heading" className="mb-2 text-slate-600">
        Solution-level judges
      </CardTitle>
      <ul className="space-y-2 text-sm">
        {views.map((view) => (
          <li key={view.runId} data-testid="solution-judgement">
            <button type="button" className="flex flex-wrap items-baseline gap-2 text-left" aria-expanded={open === view.runId} onClick={() => setOpen(open === view.runId ? null : view.runId)}>
              <span className="font-medium text-slate-800">{view.title}</span>
              <span className="text-xs text-slate-500">{view.asked}</span>
              <span>{view.prediction}</span>
              {view.tally && <span className="text-xs text-slate-500">{view.tally}</span>}
              <span className="text-slate-500">{open === view.runId ? "▾" : "▸"}</span>
            </button>
            {open === view.runId && (
              <ol className="mt-1 space-y-1">
                {view.samples.map((sample) => (
                  <li key={sample.index} className="rounded border border-slate-200 bg-slate-50 p-2 text-xs" data-testid="solution-sample">
                    <div className="mb-1 flex items-center gap-2">
                      <span className="font-mono text-slate-500">#{sample.index}</span>
                      <span>{sample.reading}</span>
                      {sample.truncated && <TruncatedBadge />}
                    </div>
                    <RichText text={sample.text} mode={textMode} className="text-slate-800" />
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}
