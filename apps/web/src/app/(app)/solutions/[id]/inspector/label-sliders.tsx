"use client";

import { ABS_Q_EVIDENCE, type AbsQEvidence } from "@stepwiser/core";
import { Card, Select } from "~/components/ui";
import type { LabelParams } from "./use-label-params";

function Slider(props: { label: string; value: number; min: number; max: number; step: number; onChange: (value: number) => void }) {
  return (
    <label className="flex items-center gap-2 text-xs">
      <span className="w-6 font-mono">{props.label}</span>
      <input
        type="range"
        aria-label={props.label}
        min={props.min}
        max={props.max}
        step={props.step}
        value={props.value}
        onChange={(e) => props.onChange(Number(e.target.value))}
        className="w-28"
      />
      <span className="w-10 tabular-nums">{props.value}</span>
    </label>
  );
}

/** Abs-Q's evidence, γ for Rel-Ratio, α and n for Rel-Effective; labels follow as they move. */
export function LabelSliders({ params, onChange }: { params: LabelParams; onChange: (params: LabelParams) => void }) {
  return (
    <Card padding="none" className="flex flex-wrap items-center gap-4 px-3 py-2">
      <span className="text-xs font-semibold text-slate-600">Label parameters</span>
      <label className="flex items-center gap-2 text-xs">
        <span className="font-mono">Abs-Q evidence</span>
        <Select
          inline
          compact
          aria-label="Abs-Q evidence"
          value={params.evidence}
          onChange={(e) => onChange({ ...params, evidence: e.target.value as AbsQEvidence })}
          options={ABS_Q_EVIDENCE.map((evidence) => [evidence, evidence] as const)}
        />
      </label>
      <Slider label="γ" value={params.gamma} min={0.1} max={1.5} step={0.05} onChange={(gamma) => onChange({ ...params, gamma })} />
      <Slider label="α" value={params.alpha} min={0} max={1.5} step={0.05} onChange={(alpha) => onChange({ ...params, alpha })} />
      <Slider label="n" value={params.n} min={1} max={16} step={1} onChange={(n) => onChange({ ...params, n })} />
    </Card>
  );
}
