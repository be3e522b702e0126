"use client";

import type { Label } from "@stepwiser/core";
import { useState, type ReactNode } from "react";
import { RichText, type RichTextMode } from "~/components/rich-text";
import { Button, Card, cx, Truncate } from "~/components/ui";
import { labelChipView, type ChunkRowData } from "./chunk-rows";
import { JudgeCell, RationaleList } from "./judge-cell";
import { QBar } from "./q-bar";

/**
 * One Monte-Carlo label. An unsure one (confidence below UNSURE_BELOW) is
 * drawn dashed on white with a "?", not by colour alone; the exact confidence
 * is in the hover title and, for screen readers, in the chip's text.
 */
function LabelBadge({ rule, label, confidence }: { rule: string; label: Label | null | undefined; confidence: number | null | undefined }) {
  if (!label) return null;
  const chip = labelChipView(rule, label, confidence ?? null);
  const positive = label === "Positive";
  return (
    <span
      data-testid={`label-${rule}`}
      data-label={label}
      data-confidence={confidence ?? undefined}
      data-unsure={chip.unsure ? "true" : undefined}
      title={chip.description}
      className={cx(
        "rounded border px-1 text-[11px]",
        positive ? "text-green-800" : "text-red-800",
        chip.unsure ? cx("border-dashed bg-white", positive ? "border-green-700" : "border-red-700") : positive ? "border-transparent bg-green-50" : "border-transparent bg-red-50",
      )}
    >
      <span aria-hidden="true">{chip.text}</span>
      <span className="sr-only">{chip.description}</span>
    </span>
  );
}

/**
 * One chunk with everything known about it (shaped by `inspectorChunkRows`): value, labels, each judge's vote.
 * What is opened from the side column (a judge's rationales, the rollouts behind the Q-value) spans the whole
 * chunk underneath, beside the text it is about.
 */
export function ChunkRow({ row, active, textMode, onRollouts, rollouts }: { row: ChunkRowData; active: boolean; textMode: RichTextMode; onRollouts?: () => void; rollouts?: ReactNode }) {
  const [openJudges, setOpenJudges] = useState<string[]>([]);
  const toggleJudge = (runId: string) => setOpenJudges((open) => (open.includes(runId) ? open.filter((id) => id !== runId) : [...open, runId]));
  const opened = row.judges.filter((judge) => judge.samples.length > 0 && openJudges.includes(judge.runId));
  const rationalesId = (runId: string) => `chunk-${row.index}-rationales-${runId}`;
  return (
    <Card
      as="li"
      id={`chunk-${row.index}`}
      data-testid="chunk"
      data-first-error={row.sourceFirstError ? "true" : undefined}
      tabIndex={-1}
      padding="sm"
      border={row.sourceFirstError ? "border-red-400 ring-1 ring-red-300" : active ? "border-blue-400 ring-1 ring-blue-200" : undefined}
      className={cx("grid scroll-mt-4 gap-3 outline-none md:grid-cols-[minmax(0,1fr)_auto]", row.afterSourceError && "opacity-70")}
    >
      <div className="min-w-0">
        <div className="mb-1 flex items-center gap-2 text-xs text-slate-500">
          <a href={`#chunk-${row.index}`} className="font-mono hover:underline" title="Permalink to this chunk">
            #{row.index}
          </a>
          <span className="tabular-nums">
            chars {row.startOffset}–{row.endOffset}
          </span>
          {row.sourceFirstError && (
            <span data-testid="first-error-marker" className="rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">
              first error (source label)
            </span>
          )}
        </div>
        <RichText text={row.text} mode={textMode} className="text-sm" />
      </div>
      <div className="flex flex-col gap-2 md:w-72">
        {row.q && (
          <div className="flex items-center gap-2">
            <QBar value={row.q.value} rollouts={row.q.rollouts} correct={row.q.correct} />
            {onRollouts && row.q.rollouts > 0 && (
              <Button variant="link" className="text-xs" onClick={onRollouts} aria-expanded={rollouts !== undefined}>
                rollouts
              </Button>
            )}
          </div>
        )}
        {row.labels && (
          <div className="flex flex-wrap gap-1">
            <LabelBadge rule="abs-q" label={row.labels.absQ} confidence={row.confidences?.absQ} />
            <LabelBadge rule="rel-ratio" label={row.labels.relRatio} confidence={row.confidences?.relRatio} />
            <LabelBadge rule="rel-effective" label={row.labels.relEffective} confidence={row.confidences?.relEffective} />
          </div>
        )}
        {row.judges.map((judge) => (
          <div key={judge.runId} className="flex items-start gap-2">
            <Truncate text={judge.name} title={judge.template ? `${judge.name} · ${judge.template}` : judge.name} className="w-28 shrink-0 text-xs text-slate-500" />
            <JudgeCell judge={judge.name} samples={judge.samples} open={openJudges.includes(judge.runId)} onToggle={() => toggleJudge(judge.runId)} rationalesId={rationalesId(judge.runId)} />
          </div>
        ))}
      </div>
      {opened.map((judge) => (
        <section key={judge.runId} id={rationalesId(judge.runId)} aria-label={`${judge.name}: rationales on chunk ${row.index}`} className="min-w-0 text-xs md:col-span-2" data-testid="chunk-rationales">
          <h4 className="mb-1 font-medium text-slate-600">
            {judge.name}
            {judge.template && <span className="font-normal text-slate-400"> · {judge.template}</span>}
          </h4>
          <RationaleList samples={judge.samples} textMode={textMode} testId="rationale" itemClassName="bg-slate-50" />
        </section>
      ))}
      {rollouts && <div className="min-w-0 md:col-span-2">{rollouts}</div>}
    </Card>
  );
}
