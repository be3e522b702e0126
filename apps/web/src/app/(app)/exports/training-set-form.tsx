"use client";

import type { RouterInputs, RouterOutputs } from "@stepwiser/api";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ErrorAlert } from "~/components/alert";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { control, Field, primaryButton, sourceRunText } from "./shared";

type LabelRun = RouterOutputs["export"]["sources"]["labelRuns"][number];
type TrainingSetSpec = Extract<RouterInputs["export"]["start"]["spec"], { kind: "training-set" }>;

const FORMATS: [TrainingSetSpec["format"], string][] = [
  ["verl", "verl (Parquet: train.parquet, test.parquet)"],
  ["openrlhf", "OpenRLHF (JSONL)"],
  ["trl", "TRL (JSONL)"],
];

/**
 * A judge training set: every chunk a run labelled under one rule becomes a
 * prompt; problems are split into train and held-out test, and each split is
 * balanced between Positive and Negative.
 */
export function TrainingSetForm({ labelRuns }: { labelRuns: LabelRun[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [runId, setRunId] = useState("");
  const [ruleKey, setRuleKey] = useState("");
  const [queued, setQueued] = useState<string | null>(null);
  const start = useMutation(
    trpc.export.start.mutationOptions({
      onSuccess: ({ runId: exportRunId }) => {
        setQueued(exportRunId);
        void queryClient.invalidateQueries({ queryKey: trpc.export.list.queryKey() });
      },
    }),
  );
  const source = labelRuns.find((r) => r.id === runId);
  // Keyed by the stored pair, not by position: a running annotate run may add rules while the form is open.
  const rules = (source?.rules ?? []).flatMap((r) => (r.rule ? [{ ...r, rule: r.rule, key: `${r.storedRule}|${r.paramsKey}` }] : []));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const rule = rules.find((r) => r.key === ruleKey);
    if (!rule) return;
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const optionalInt = (name: string) => (text(name) === "" ? undefined : Number(text(name)));
    setQueued(null);
    start.mutate({
      spec: {
        kind: "training-set",
        annotateRunId: runId,
        labelRule: rule.rule,
        format: text("format") as TrainingSetSpec["format"],
        seed: Number(text("seed")),
        heldOutFraction: Number(text("heldOutFraction")),
        minPromptChars: optionalInt("minPromptChars"),
        maxPromptChars: optionalInt("maxPromptChars"),
        dataSource: text("dataSource"),
      },
    });
  };

  return (
    <form onSubmit={onSubmit} aria-label="Export a training set" className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <h2 className="text-sm font-semibold">Judge training set</h2>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Label source" hint="An annotate run, or an import that stored labels.">
          <select
            className={control}
            required
            value={runId}
            data-testid="export-label-source"
            onChange={(e) => {
              setRunId(e.target.value);
              setRuleKey("");
            }}
          >
            <option value="">Choose…</option>
            {labelRuns.map((r) => (
              <option key={r.id} value={r.id} data-kind={r.kind} data-status={r.status} data-dataset={r.dataset?.name}>
                {sourceRunText(r)}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Label rule" hint={source && rules.length === 0 ? "This run has stored no labels yet." : "With the chunks the run labelled under it."}>
          <select className={control} required value={ruleKey} data-testid="export-rule" onChange={(e) => setRuleKey(e.target.value)}>
            <option value="">Choose…</option>
            {rules.map((r) => (
              <option key={r.key} value={r.key}>
                {r.name} · {r.chunks.toLocaleString()} chunks
              </option>
            ))}
          </select>
        </Field>
        <Field label="Format">
          <select name="format" className={control} defaultValue="verl">
            {FORMATS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="grid gap-4 sm:grid-cols-5">
        <Field label="Seed">
          <input name="seed" type="number" min={0} step={1} defaultValue={0} className={control} />
        </Field>
        <Field label="Held-out fraction" hint="Share of problems in the test split.">
          <input name="heldOutFraction" type="number" min={0} max={0.5} step={0.01} defaultValue={0.1} className={control} />
        </Field>
        <Field label="Min prompt chars" hint="Optional.">
          <input name="minPromptChars" type="number" min={0} step={1} className={control} />
        </Field>
        <Field label="Max prompt chars" hint="Optional.">
          <input name="maxPromptChars" type="number" min={1} step={1} className={control} />
        </Field>
        <Field label="Data source" hint="The data_source column.">
          <input name="dataSource" type="text" maxLength={100} defaultValue="stepwiser" className={control} />
        </Field>
      </div>
      {start.error && <ErrorAlert>{errorMessage(start.error)}</ErrorAlert>}
      <div className="flex items-center gap-3">
        <button type="submit" disabled={start.isPending || !runId || ruleKey === ""} className={primaryButton}>
          {start.isPending ? "Queueing…" : "Export training set"}
        </button>
        {queued && <span className="text-sm text-slate-600">Queued; it appears in the list below.</span>}
      </div>
    </form>
  );
}
