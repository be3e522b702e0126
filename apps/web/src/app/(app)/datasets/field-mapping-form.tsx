"use client";

import { LABEL_KINDS, TEXT_SPLITS, type FieldMapping, type LabelKind, type TextSplit } from "@stepwiser/core";
import type { ReactNode } from "react";

/** The generic JSONL mapping as the form edits it: every path a string, empty meaning "not mapped". */
export interface MappingDraft {
  problem: string;
  stepsFrom: "steps" | "text";
  steps: string;
  text: string;
  split: TextSplit;
  answer: string;
  labels: string;
  labelKind: LabelKind;
  id: string;
  generator: string;
  subset: string;
  correct: string;
  firstError: string;
}

export const EMPTY_MAPPING: MappingDraft = {
  problem: "problem",
  stepsFrom: "steps",
  steps: "steps",
  text: "",
  split: "blank-line",
  answer: "",
  labels: "",
  labelKind: "auto",
  id: "",
  generator: "",
  subset: "",
  correct: "",
  firstError: "",
};

/** The mapping the API takes; unmapped fields are left out, so the server's checks name what is missing. */
export function fieldMappingOf(draft: MappingDraft): FieldMapping {
  const path = (value: string) => (value.trim() === "" ? undefined : value.trim());
  const labels = path(draft.labels);
  const mapping: FieldMapping = {
    problem: draft.problem.trim(),
    ...(draft.stepsFrom === "steps" ? { steps: draft.steps.trim() } : { text: draft.text.trim(), split: draft.split }),
    answer: path(draft.answer),
    labels,
    labelKind: labels ? draft.labelKind : undefined,
    id: path(draft.id),
    generator: path(draft.generator),
    subset: path(draft.subset),
    correct: path(draft.correct),
    firstError: path(draft.firstError),
  };
  return Object.fromEntries(Object.entries(mapping).filter(([, v]) => v !== undefined)) as unknown as FieldMapping;
}

const input = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs";

function PathField({ label, hint, value, onChange, required }: { label: string; hint?: string; value: string; onChange: (v: string) => void; required?: boolean }) {
  return (
    <div className="min-w-0 text-sm">
      <label className="block">
        <span className="block text-slate-700">{label}</span>
        <input type="text" value={value} required={required} onChange={(e) => onChange(e.target.value)} className={input} spellCheck={false} />
      </label>
      {hint && <span className="mt-0.5 block text-xs text-slate-500">{hint}</span>}
    </div>
  );
}

function Choice({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="block min-w-0 text-sm">
      <span className="block text-slate-700">{label}</span>
      {children}
    </label>
  );
}

const SPLIT_NAMES: Record<TextSplit, string> = { "blank-line": "at blank lines", "step-markers": "at “Step k:” markers", lines: "one step per line" };
const LABEL_KIND_NAMES: Record<LabelKind, string> = {
  auto: "auto (from the values)",
  hard: "hard (+/−, true/false)",
  soft: "soft (Q in [0, 1])",
  rating: "rating (−1 / 0 / +1)",
};

/** Where each part of a solution sits in a JSONL record, as dotted paths (`response.steps`, `turns.0.text`). */
export function FieldMappingForm({ value, onChange }: { value: MappingDraft; onChange: (next: MappingDraft) => void }) {
  const set = <K extends keyof MappingDraft>(key: K) => (next: MappingDraft[K]) => onChange({ ...value, [key]: next });
  return (
    <fieldset className="space-y-3 rounded border border-slate-200 p-3" aria-label="Field mapping">
      <legend className="px-1 text-sm font-medium text-slate-700">Field mapping (dotted paths into each record)</legend>
      <div className="grid gap-3 sm:grid-cols-3">
        <PathField label="Problem field" value={value.problem} onChange={set("problem")} required />
        <Choice label="Steps come from">
          <select className="mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1" value={value.stepsFrom} onChange={(e) => set("stepsFrom")(e.target.value as MappingDraft["stepsFrom"])}>
            <option value="steps">an array of step strings</option>
            <option value="text">one text, split into steps</option>
          </select>
        </Choice>
        {value.stepsFrom === "steps" ? (
          <PathField label="Steps field" value={value.steps} onChange={set("steps")} required />
        ) : (
          <div className="grid grid-cols-2 gap-2">
            <PathField label="Text field" value={value.text} onChange={set("text")} required />
            <Choice label="Split">
              <select className="mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1" value={value.split} onChange={(e) => set("split")(e.target.value as TextSplit)}>
                {TEXT_SPLITS.map((s) => (
                  <option key={s} value={s}>
                    {SPLIT_NAMES[s]}
                  </option>
                ))}
              </select>
            </Choice>
          </div>
        )}
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <PathField label="Answer field" hint="The reference (gold) answer." value={value.answer} onChange={set("answer")} />
        <PathField label="Labels field" hint="One label per step; null for an unlabelled step." value={value.labels} onChange={set("labels")} />
        <Choice label="Label kind">
          <select
            className="mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1 disabled:opacity-50"
            value={value.labelKind}
            disabled={value.labels.trim() === ""}
            onChange={(e) => set("labelKind")(e.target.value as LabelKind)}
          >
            {LABEL_KINDS.map((k) => (
              <option key={k} value={k}>
                {LABEL_KIND_NAMES[k]}
              </option>
            ))}
          </select>
        </Choice>
      </div>
      <div className="grid gap-3 sm:grid-cols-5">
        <PathField label="Id field" value={value.id} onChange={set("id")} />
        <PathField label="Generator field" value={value.generator} onChange={set("generator")} />
        <PathField label="Subset field" value={value.subset} onChange={set("subset")} />
        <PathField label="Correct field" hint="Whether the final answer is right (boolean)." value={value.correct} onChange={set("correct")} />
        <PathField label="First error field" hint="0-based step index, −1 for none." value={value.firstError} onChange={set("firstError")} />
      </div>
    </fieldset>
  );
}
