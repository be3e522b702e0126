"use client";

import { Button, Input, Select } from "~/components/ui";
import { EVIDENCE_CHOICES, LABEL_RULE_CHOICES, newRuleRow, PRIOR_CHOICES, RULE_TITLES, type LabelConfidenceDraft, type LabelRuleChoice, type LabelRuleRow } from "./label-editors";
import { presetButtons, presetRuleRows } from "./presets";

/** An error under a control, as every field of the launch form shows it. */
export function FieldErrorText({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span id={id} role="alert" data-testid="field-error" className="mt-0.5 block text-xs text-red-700">
      {message}
    </span>
  );
}

/** The anchors the rows' parameters show errors at (`labelRules.1.gamma`), beside the field's own. */
export function labelRuleAnchors(field: string, rows: readonly LabelRuleRow[]): string[] {
  return rows.flatMap((_, i) => ["gamma", "alpha", "n"].map((name) => `${field}.${i}.${name}`));
}

export function labelConfidenceAnchors(field: string): string[] {
  return ["absQEpsilon", "mixture", "mixture.zero", "mixture.one", "mixture.a", "mixture.b"].map((name) => `${field}.${name}`);
}

function NumberCell({ id, label, value, error, onChange }: { id: string; label: string; value: string; error?: string; onChange: (value: string) => void }) {
  return (
    <label className="block min-w-0 text-xs">
      <span className="block text-slate-600">{label}</span>
      <Input id={id} type="number" step="any" compact value={value} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} onChange={(e) => onChange(e.target.value)} />
      <FieldErrorText id={`${id}-error`} message={error} />
    </label>
  );
}

/** The label rules as rows: a rule each, with its own parameters; add, remove, or fill from a paper preset. */
export function LabelRulesEditor({ name, rows, errors, onChange }: { name: string; rows: LabelRuleRow[]; errors: ReadonlyMap<string, string>; onChange: (rows: LabelRuleRow[]) => void }) {
  const set = (i: number, patch: Partial<LabelRuleRow>) => onChange(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  return (
    <div className="space-y-2" data-testid="label-rules-editor">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="text-slate-600">Paper presets:</span>
        {presetButtons().map((preset) => (
          <Button key={preset.id} type="button" variant="secondary" size="sm" onClick={() => onChange(presetRuleRows(preset.id))}>
            {preset.label}
          </Button>
        ))}
      </div>
      <ol className="space-y-2">
        {rows.map((row, i) => {
          const id = (param: string) => `run-field-${name}-${i}-${param}`;
          const error = (param: string) => errors.get(`${name}.${i}.${param}`);
          return (
            <li key={i} className="grid grid-cols-2 items-end gap-2 rounded border border-slate-200 p-2 sm:grid-cols-4" data-testid="label-rule-row">
              <label className="block min-w-0 text-xs">
                <span className="block text-slate-600">Rule {i + 1}</span>
                <Select id={id("rule")} compact value={row.rule} onChange={(e) => set(i, { rule: e.target.value as LabelRuleChoice })} options={LABEL_RULE_CHOICES.map((r) => [r, RULE_TITLES[r]] as const)} />
              </label>
              {row.rule === "abs-q" && (
                <label className="block min-w-0 text-xs">
                  <span className="block text-slate-600">Evidence</span>
                  <Select id={id("evidence")} compact value={row.evidence} onChange={(e) => set(i, { evidence: e.target.value as LabelRuleRow["evidence"] })} options={EVIDENCE_CHOICES.map((v) => [v, v] as const)} />
                </label>
              )}
              {row.rule === "rel-ratio" && <NumberCell id={id("gamma")} label="γ" value={row.gamma} error={error("gamma")} onChange={(gamma) => set(i, { gamma })} />}
              {row.rule === "rel-effective" && (
                <>
                  <NumberCell id={id("alpha")} label="α" value={row.alpha} error={error("alpha")} onChange={(alpha) => set(i, { alpha })} />
                  <NumberCell id={id("n")} label="n" value={row.n} error={error("n")} onChange={(n) => set(i, { n })} />
                </>
              )}
              <Button type="button" variant="subtle" className="justify-self-start text-xs" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove rule ${i + 1}`}>
                Remove
              </Button>
            </li>
          );
        })}
      </ol>
      <Button type="button" variant="secondary" size="sm" onClick={() => onChange([...rows, newRuleRow(rows.some((r) => r.rule === "abs-q") ? "rel-ratio" : "abs-q")])}>
        Add rule
      </Button>
    </div>
  );
}

/** The label confidence options: the prior (with the mixture's weights and Beta parameters) and ε. */
export function LabelConfidenceEditor({ name, draft, errors, onChange }: { name: string; draft: LabelConfidenceDraft; errors: ReadonlyMap<string, string>; onChange: (draft: LabelConfidenceDraft) => void }) {
  const id = (param: string) => `run-field-${name}-${param}`;
  const set = (patch: Partial<LabelConfidenceDraft>) => onChange({ ...draft, ...patch });
  const mixtureError = errors.get(`${name}.mixture`);
  return (
    <div className="space-y-2" data-testid="label-confidence-editor">
      <div className="grid grid-cols-2 gap-2">
        <label className="block min-w-0 text-xs">
          <span className="block text-slate-600">Prior</span>
          <Select id={id("prior")} compact value={draft.prior} onChange={(e) => set({ prior: e.target.value as LabelConfidenceDraft["prior"] })} options={PRIOR_CHOICES.map((p) => [p, p] as const)} />
        </label>
        <NumberCell id={id("absQEpsilon")} label="ε (floor)" value={draft.absQEpsilon} error={errors.get(`${name}.absQEpsilon`)} onChange={(absQEpsilon) => set({ absQEpsilon })} />
      </div>
      {draft.prior === "mixture" && (
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          <NumberCell id={id("zero")} label="Weight of Q = 0" value={draft.zero} error={errors.get(`${name}.mixture.zero`)} onChange={(zero) => set({ zero })} />
          <NumberCell id={id("one")} label="Weight of Q = 1" value={draft.one} error={errors.get(`${name}.mixture.one`)} onChange={(one) => set({ one })} />
          <NumberCell id={id("a")} label="Beta a" value={draft.a} error={errors.get(`${name}.mixture.a`)} onChange={(a) => set({ a })} />
          <NumberCell id={id("b")} label="Beta b" value={draft.b} error={errors.get(`${name}.mixture.b`)} onChange={(b) => set({ b })} />
        </div>
      )}
      <FieldErrorText id={id("mixture-error")} message={mixtureError} />
    </div>
  );
}
