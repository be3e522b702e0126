"use client";

import type { RouterInputs, RouterOutputs } from "@stepwiser/api";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, CardTitle, ErrorAlert, Field, Input, Select } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { sourceRunOption } from "./shared";

type LabelRun = RouterOutputs["export"]["sources"]["labelRuns"][number];
type TrainingSetSpec = Extract<RouterInputs["export"]["start"]["spec"], { kind: "training-set" }>;

/** Formats whose rows are whole solutions (stepwise supervision): they can be balanced by solution, and train no generation. */
const SOLUTION_FORMATS: readonly TrainingSetSpec["format"][] = ["trl-prm", "openrlhf-prm"];

const FORMATS: [TrainingSetSpec["format"], string][] = [
  ["verl", "verl (Parquet: train.parquet, test.parquet)"],
  ["openrlhf", "OpenRLHF (JSONL)"],
  ["trl", "TRL GRPO (JSONL)"],
  ["trl-prm", "TRL stepwise supervision (Parquet and JSONL, one row per solution)"],
  ["openrlhf-prm", "OpenRLHF process reward (JSONL, one row per solution)"],
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
  const [format, setFormat] = useState<TrainingSetSpec["format"]>("verl");
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
    const optionalNumber = (name: string) => (text(name) === "" ? undefined : Number(text(name)));
    setQueued(null);
    start.mutate({
      spec: {
        kind: "training-set",
        annotateRunId: runId,
        labelRule: rule.rule,
        format,
        seed: Number(text("seed")),
        heldOutFraction: Number(text("heldOutFraction")),
        minPromptChars: optionalNumber("minPromptChars"),
        maxPromptChars: optionalNumber("maxPromptChars"),
        minConfidence: optionalNumber("minConfidence"),
        dataSource: text("dataSource"),
        balanceSolutions: SOLUTION_FORMATS.includes(format) && form.get("balanceSolutions") === "on",
        ...(SOLUTION_FORMATS.includes(format) ? {} : { maxResponseTokens: Number(text("maxResponseTokens")) }),
      },
    });
  };

  return (
    <Card as="form" onSubmit={onSubmit} aria-label="Export a training set" className="space-y-4">
      <CardTitle>Judge training set</CardTitle>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Label source" hint="An annotate run, or an import that stored labels.">
          <Select
            required
            value={runId}
            data-testid="export-label-source"
            onChange={(e) => {
              setRunId(e.target.value);
              setRuleKey("");
            }}
            placeholder="Choose…"
            options={labelRuns.map(sourceRunOption)}
          />
        </Field>
        <Field label="Label rule" hint={source && rules.length === 0 ? "This run has stored no labels yet." : "With the chunks the run labelled under it."}>
          <Select
            required
            value={ruleKey}
            data-testid="export-rule"
            onChange={(e) => setRuleKey(e.target.value)}
            placeholder="Choose…"
            options={rules.map((r) => [r.key, `${r.name} · ${r.chunks.toLocaleString()} chunks`] as const)}
          />
        </Field>
        <Field label="Format" hint="Every format also writes a dataset card (README.md) and a manifest with the launch command.">
          <Select name="format" value={format} onChange={(e) => setFormat(e.target.value as TrainingSetSpec["format"])} options={FORMATS} data-testid="export-format" />
        </Field>
      </div>
      <div className="grid gap-4 sm:grid-cols-3 lg:grid-cols-6">
        <Field label="Seed">
          <Input name="seed" type="number" min={0} step={1} defaultValue={0} />
        </Field>
        <Field label="Held-out fraction" hint="Share of problems in the test split.">
          <Input name="heldOutFraction" type="number" min={0} max={0.5} step={0.01} defaultValue={0.1} />
        </Field>
        <Field label="Min prompt chars" hint="Optional.">
          <Input name="minPromptChars" type="number" min={0} step={1} />
        </Field>
        <Field label="Max prompt chars" hint="Optional.">
          <Input name="maxPromptChars" type="number" min={1} step={1} />
        </Field>
        <Field label="Min confidence" hint="Optional, 0 to 1: labels less sure (or without a confidence) are left out before balancing.">
          <Input name="minConfidence" type="number" min={0} max={1} step={0.01} data-testid="export-min-confidence" />
        </Field>
        <Field label="Data source" hint="The data_source column.">
          <Input name="dataSource" type="text" maxLength={100} defaultValue="stepwiser" />
        </Field>
        {!SOLUTION_FORMATS.includes(format) && (
          <Field label="Max response tokens" hint="What a GRPO rollout may generate: the judge's rationale and verdict (the paper: 3096).">
            <Input name="maxResponseTokens" type="number" min={1} max={131072} step={1} defaultValue={3096} required data-testid="export-max-response-tokens" />
          </Field>
        )}
      </div>
      {SOLUTION_FORMATS.includes(format) && (
        <label className="flex items-center gap-2 text-sm">
          <input name="balanceSolutions" type="checkbox" data-testid="export-balance-solutions" /> Balance solutions: per split, as many solutions with a Negative step as
          without one (otherwise every solution is kept)
        </label>
      )}
      {start.error && <ErrorAlert>{errorMessage(start.error)}</ErrorAlert>}
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={start.isPending || !runId || ruleKey === ""}>
          {start.isPending ? "Queueing…" : "Export training set"}
        </Button>
        {queued && <span className="text-sm text-slate-600">Queued; it appears in the list below.</span>}
      </div>
    </Card>
  );
}
