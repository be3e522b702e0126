"use client";

import { LABEL_KINDS, TEXT_SPLITS, type FieldMapping, type LabelKind, type TextSplit } from "@stepwiser/core";
import { Field, Input, Select } from "~/components/ui";

/** The generic (JSONL, Parquet) mapping as the form edits it: every path a string, empty meaning "not mapped". */
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

function PathField({ label, hint, value, onChange, required }: { label: string; hint?: string; value: string; onChange: (v: string) => void; required?: boolean }) {
  return (
    <Field label={label} hint={hint}>
      <Input type="text" value={value} required={required} onChange={(e) => onChange(e.target.value)} className="font-mono text-xs" spellCheck={false} />
    </Field>
  );
}

const SPLIT_NAMES: Record<TextSplit, string> = { "blank-line": "at blank lines", "step-markers": "at “Step k:” markers", lines: "one step per line" };
const LABEL_KIND_NAMES: Record<LabelKind, string> = {
  auto: "auto (from the values)",
  hard: "hard (+/−, true/false)",
  soft: "soft (Q in [0, 1])",
  rating: "rating (−1 / 0 / +1)",
};

/** Where each part of a solution sits in a record (a JSONL object, a Parquet row), as dotted paths (`response.steps`, `turns.0.text`). */
export function FieldMappingForm({ value, onChange }: { value: MappingDraft; onChange: (next: MappingDraft) => void }) {
  const set = <K extends keyof MappingDraft>(key: K) => (next: MappingDraft[K]) => onChange({ ...value, [key]: next });
  return (
    <fieldset className="space-y-3 rounded border border-slate-200 p-3" aria-label="Field mapping">
      <legend className="px-1 text-sm font-medium text-slate-700">Field mapping (dotted paths into each record)</legend>
      <div className="grid gap-3 sm:grid-cols-3">
        <PathField label="Problem field" value={value.problem} onChange={set("problem")} required />
        <Field label="Steps come from">
          <Select
            value={value.stepsFrom}
            onChange={(e) => set("stepsFrom")(e.target.value as MappingDraft["stepsFrom"])}
            options={[
              ["steps", "an array of step strings"],
              ["text", "one text, split into steps"],
            ]}
          />
        </Field>
        {value.stepsFrom === "steps" ? (
          <PathField label="Steps field" value={value.steps} onChange={set("steps")} required />
        ) : (
          <div className="grid grid-cols-2 gap-2">
            <PathField label="Text field" value={value.text} onChange={set("text")} required />
            <Field label="Split">
              <Select value={value.split} onChange={(e) => set("split")(e.target.value as TextSplit)} options={TEXT_SPLITS.map((s) => [s, SPLIT_NAMES[s]] as const)} />
            </Field>
          </div>
        )}
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <PathField label="Answer field" hint="The reference (gold) answer." value={value.answer} onChange={set("answer")} />
        <PathField label="Labels field" hint="One label per step; null for an unlabelled step." value={value.labels} onChange={set("labels")} />
        <Field label="Label kind">
          <Select
            value={value.labelKind}
            disabled={value.labels.trim() === ""}
            onChange={(e) => set("labelKind")(e.target.value as LabelKind)}
            options={LABEL_KINDS.map((k) => [k, LABEL_KIND_NAMES[k]] as const)}
          />
        </Field>
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
