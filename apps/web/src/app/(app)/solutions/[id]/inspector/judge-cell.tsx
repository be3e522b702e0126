"use client";

import { majorityVerdict, type Verdict } from "@stepwiser/core";
import { RichText, type RichTextMode } from "~/components/rich-text";
import type { JudgeSampleView } from "./chunk-rows";

const TONE: Record<Verdict, string> = {
  Positive: "bg-green-100 text-green-800",
  Negative: "bg-red-100 text-red-800",
  unparseable: "bg-slate-200 text-slate-700",
};

export function VerdictBadge({ verdict, detail }: { verdict: Verdict; detail?: string }) {
  return (
    <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${TONE[verdict]}`}>
      {verdict}
      {detail ? <span className="font-normal opacity-80"> {detail}</span> : null}
    </span>
  );
}

/** A judge output the server cut at its generation limit: not the same as a badly formatted one. */
export function TruncatedBadge() {
  return (
    <span className="inline-block rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900" title="The output hit its generation limit (finish reason length)" data-testid="truncated">
      truncated
    </span>
  );
}

/** A judge's samples on one chunk: index, verdict and rationale (model text, rendered safely). */
export function RationaleList({ samples, textMode, testId, itemClassName, className = "" }: { samples: JudgeSampleView[]; textMode: RichTextMode; testId: string; itemClassName: string; className?: string }) {
  return (
    <ol className={`space-y-1 ${className}`}>
      {samples.map((s) => (
        <li key={s.sampleIndex} className={`rounded border border-slate-200 p-2 ${itemClassName}`} data-testid={testId}>
          <div className="mb-1 flex items-center gap-2">
            <span className="font-mono text-slate-500">#{s.sampleIndex}</span>
            <VerdictBadge verdict={s.verdict} />
            {s.truncated && <TruncatedBadge />}
          </div>
          <RichText text={s.rationale} mode={textMode} className="text-slate-800" />
        </li>
      ))}
    </ol>
  );
}

/**
 * One judge's verdict on one chunk: the vote and its split, and a toggle for its rationales. The chunk row
 * owns whether they are open and shows them under the whole chunk (`rationalesId` names that box), where
 * the text has the chunk's width rather than this column's.
 */
export function JudgeCell({ judge, samples, open, onToggle, rationalesId }: { judge: string; samples: JudgeSampleView[]; open: boolean; onToggle: () => void; rationalesId?: string }) {
  if (samples.length === 0) return <span className="text-xs text-slate-400">not judged</span>;
  const vote = majorityVerdict(samples.map((s) => s.verdict));
  const truncated = samples.filter((s) => s.truncated).length;
  const split = `${vote.positive}+ / ${vote.negative}−${vote.unparseable ? ` / ${vote.unparseable}?` : ""}${truncated ? ` · ${truncated} truncated` : ""}`;
  return (
    <div className="text-xs" data-testid="judge-cell">
      <button type="button" onClick={onToggle} aria-expanded={open} aria-controls={open ? rationalesId : undefined} className="flex items-center gap-1" title={`${judge}: ${open ? "hide" : "show"} rationales`}>
        <VerdictBadge verdict={vote.verdict} detail={split} />
        <span className="text-slate-500">{open ? "▾" : "▸"}</span>
      </button>
    </div>
  );
}
