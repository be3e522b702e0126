"use client";

import type { Label } from "@stepwiser/core";
import { RichText, type RichTextMode } from "~/components/rich-text";
import { JudgeCell, type JudgeSampleView } from "./judge-cell";
import { QBar } from "./q-bar";

export interface ChunkRowProps {
  index: number;
  text: string;
  startOffset: number;
  endOffset: number;
  sourceFirstError: boolean;
  afterSourceError: boolean;
  q: { value: number; rollouts: number; correct: number } | null;
  labels: { absQ?: Label; relRatio?: Label | null; relEffective?: Label | null } | null;
  judges: Array<{ runId: string; name: string; samples: JudgeSampleView[] }>;
  active: boolean;
  textMode: RichTextMode;
  onRollouts?: () => void;
}

function LabelBadge({ rule, label }: { rule: string; label: Label | null | undefined }) {
  if (!label) return null;
  return (
    <span data-testid={`label-${rule}`} data-label={label} className={`rounded px-1 text-[11px] ${label === "Positive" ? "bg-green-50 text-green-800" : "bg-red-50 text-red-800"}`}>
      {rule} {label === "Positive" ? "+" : "−"}
    </span>
  );
}

/** One chunk with everything known about it: value, labels, each judge's vote. */
export function ChunkRow(props: ChunkRowProps) {
  return (
    <li
      id={`chunk-${props.index}`}
      data-testid="chunk"
      data-first-error={props.sourceFirstError ? "true" : undefined}
      tabIndex={-1}
      className={`grid scroll-mt-4 gap-3 rounded-lg border bg-white p-3 shadow-sm outline-none md:grid-cols-[minmax(0,1fr)_auto] ${
        props.sourceFirstError ? "border-red-400 ring-1 ring-red-300" : props.active ? "border-blue-400 ring-1 ring-blue-200" : "border-slate-200"
      } ${props.afterSourceError ? "opacity-70" : ""}`}
    >
      <div className="min-w-0">
        <div className="mb-1 flex items-center gap-2 text-xs text-slate-500">
          <a href={`#chunk-${props.index}`} className="font-mono hover:underline" title="Permalink to this chunk">
            #{props.index}
          </a>
          <span className="tabular-nums">
            chars {props.startOffset}–{props.endOffset}
          </span>
          {props.sourceFirstError && (
            <span data-testid="first-error-marker" className="rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">
              first error (source label)
            </span>
          )}
        </div>
        <RichText text={props.text} mode={props.textMode} className="text-sm" />
      </div>
      <div className="flex flex-col gap-2 md:w-72">
        {props.q && (
          <div className="flex items-center gap-2">
            <QBar value={props.q.value} rollouts={props.q.rollouts} correct={props.q.correct} />
            {props.onRollouts && props.q.rollouts > 0 && (
              <button type="button" onClick={props.onRollouts} className="text-xs text-blue-700 hover:underline">
                rollouts
              </button>
            )}
          </div>
        )}
        {props.labels && (
          <div className="flex flex-wrap gap-1">
            <LabelBadge rule="abs-q" label={props.labels.absQ} />
            <LabelBadge rule="rel-ratio" label={props.labels.relRatio} />
            <LabelBadge rule="rel-effective" label={props.labels.relEffective} />
          </div>
        )}
        {props.judges.map((judge) => (
          <div key={judge.runId} className="flex items-start gap-2">
            <span className="w-28 shrink-0 truncate text-xs text-slate-500" title={judge.name}>
              {judge.name}
            </span>
            <JudgeCell judge={judge.name} samples={judge.samples} textMode={props.textMode} />
          </div>
        ))}
      </div>
    </li>
  );
}
