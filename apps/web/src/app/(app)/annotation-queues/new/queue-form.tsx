"use client";

import type { RouterInputs } from "@stepwiser/api";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Card, ErrorAlert, Field, Input, Select, Textarea } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { confidenceRuleOptions, confidenceRuleValue, describeView, parseConfidenceRuleValue, readSolutionView } from "~/lib/solution-filters";
import { useTRPC } from "~/trpc/react";
import { BlindChoice, blindFields } from "../blind-choice";

type CreateQueueInput = RouterInputs["annotationQueue"]["createQueue"];
type SelectionKind = CreateQueueInput["selection"]["kind"];

const SELECTIONS: [SelectionKind, string][] = [
  ["filter", "The filtered solutions list"],
  ["disagreements", "Where the judge and the Monte-Carlo label disagree"],
  ["random", "A random sample of a run's solutions"],
  ["stratified", "A sample stratified by the run's label (some chunk Negative / none)"],
  ["least-confident", "The least confident labels of the annotate run"],
];

/**
 * A queue is a selection of solutions plus how to label them. Arriving from a
 * filtered solutions list (`?dataset=…&<the list's filters>`), the selection is
 * that list.
 */
export function QueueForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const view = readSolutionView(params);
  const fromList = params.has("dataset");
  const [datasetId, setDatasetId] = useState(params.get("dataset") ?? "");
  const [kind, setKind] = useState<SelectionKind>(fromList ? "filter" : "random");
  const [annotateRunId, setAnnotateRunId] = useState(view.annotateRunId ?? "");
  const [judgeRunId, setJudgeRunId] = useState(view.judgeRunId ?? "");
  const [sampleRunId, setSampleRunId] = useState("");
  const [confidenceRule, setConfidenceRule] = useState("");

  const datasets = useQuery(trpc.dataset.list.queryOptions());
  const candidates = useQuery(trpc.annotationQueue.annotatorCandidates.queryOptions({}));
  const runs = useQuery({ ...trpc.run.list.queryOptions({ datasetId, kinds: ["annotate", "judge", "benchmark"], pageSize: 200 }), enabled: datasetId !== "" });
  const annotateRuns = (runs.data?.runs ?? []).filter((r) => r.kind === "annotate");
  const judgeRuns = (runs.data?.runs ?? []).filter((r) => r.kind === "judge" || r.kind === "benchmark");
  // The annotate run's label rules with stored labels: what a least-confident selection ranks by.
  const compareCandidates = useQuery({ ...trpc.compare.candidates.queryOptions({ datasetId }), enabled: datasetId !== "" && annotateRunId !== "" && kind === "least-confident" });
  const labelRules = compareCandidates.data?.annotateRuns.find((r) => r.id === annotateRunId)?.rules ?? [];
  const chosenRule = labelRules.some((r) => confidenceRuleValue(r) === confidenceRule) ? confidenceRule : confidenceRuleValue(labelRules[0]);
  const create = useMutation(trpc.annotationQueue.createQueue.mutationOptions({ onSuccess: ({ queueId }) => router.push(`/annotation-queues/${queueId}`) }));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const int = (name: string) => Number.parseInt(text(name), 10);
    const rule = parseConfidenceRuleValue(chosenRule);
    if (kind === "least-confident" && !rule) return; // the rule picker is required: the browser has said so
    const selection: CreateQueueInput["selection"] =
      kind === "filter"
        ? { kind, filter: view, limit: int("limit") }
        : kind === "disagreements"
          ? { kind, limit: int("limit") }
          : kind === "random"
            ? { kind, runId: sampleRunId, size: int("size"), seed: int("seed") }
            : kind === "stratified"
              ? { kind, runId: sampleRunId, perStratum: int("perStratum"), seed: int("seed") }
              : { kind, annotateRunId, rule: rule!, count: int("count") };
    create.mutate({
      name: text("name"),
      instructions: text("instructions"),
      scheme: text("scheme") === "first_error" ? "first_error" : "rating",
      annotatorsPerItem: int("annotatorsPerItem"),
      leaseSeconds: int("leaseMinutes") * 60,
      ...blindFields(form),
      datasetId,
      ...(annotateRunId ? { annotateRunId } : {}),
      ...(judgeRunId ? { judgeRunId } : {}),
      selection,
      annotatorIds: form.getAll("annotatorIds").map(String),
    });
  };

  const runOption = (r: { id: string; label: string }) => [r.id, r.label] as const;
  return (
    <Card as="form" onSubmit={onSubmit} className="max-w-3xl space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Name">
          <Input name="name" required maxLength={200} placeholder="e.g. MC vs judge audit, batch 1" />
        </Field>
        <Field label="Dataset">
          <Select name="dataset" required value={datasetId} onChange={(e) => setDatasetId(e.target.value)} placeholder="Choose…" options={(datasets.data ?? []).map((d) => [d.id, d.name] as const)} />
        </Field>
      </div>
      <Field label="Instructions for annotators" hint="Markdown; shown above every item.">
        <Textarea name="instructions" rows={4} defaultValue="Rate each chunk: +1 if it is a correct, useful step; 0 if it is correct but does not help; −1 if it contains an error." />
      </Field>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Label scheme">
          <Select
            name="scheme"
            defaultValue="rating"
            options={[
              ["rating", "−1 / 0 / +1 per chunk"],
              ["first_error", "first error per solution"],
            ]}
          />
        </Field>
        <Field label="Annotators per item (k)">
          <Input name="annotatorsPerItem" type="number" min={1} max={10} defaultValue={2} />
        </Field>
        <Field label="Lease (minutes)" hint="An abandoned item returns after this.">
          <Input name="leaseMinutes" type="number" min={1} max={1440} defaultValue={15} />
        </Field>
      </div>
      <BlindChoice initiallyBlind />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Monte-Carlo labels audited (annotate run)">
          <Select required={kind === "least-confident"} value={annotateRunId} onChange={(e) => setAnnotateRunId(e.target.value)} placeholder="None" options={annotateRuns.map(runOption)} />
        </Field>
        <Field label="Judge verdicts audited (judge run)">
          <Select value={judgeRunId} onChange={(e) => setJudgeRunId(e.target.value)} placeholder="None" options={judgeRuns.map(runOption)} />
        </Field>
      </div>
      <fieldset className="space-y-2 rounded border border-slate-200 p-3" data-testid="queue-annotators">
        <legend className="px-1 text-sm font-medium text-slate-700">Annotators</legend>
        <p className="text-xs text-slate-600">Annotators see and work only the queues they are members of; researchers and admins work any queue. Members can be changed later on the queue&apos;s page.</p>
        {candidates.data?.length === 0 && <p className="text-sm text-slate-500">No annotator accounts yet; an admin creates them under Users.</p>}
        <div className="grid gap-1 sm:grid-cols-2">
          {(candidates.data ?? []).map((user) => (
            <label key={user.id} className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="annotatorIds" value={user.id} /> {user.name} <span className="text-slate-500">{user.email}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="space-y-3 rounded border border-slate-200 p-3">
        <legend className="px-1 text-sm font-medium text-slate-700">Which solutions</legend>
        <Field label="Selection">
          <Select
            value={kind}
            onChange={(e) => setKind(e.target.value as SelectionKind)}
            options={SELECTIONS.map(([value, text]) => {
              const unavailable = value === "filter" && !fromList;
              return { value, label: unavailable ? `${text} (open a filtered list first)` : text, disabled: unavailable };
            })}
          />
        </Field>
        {kind === "filter" && <p className="text-xs text-slate-600">Filters: {Object.keys(view).length ? describeView(view) : "none (the whole dataset, in file order)"}</p>}
        {(kind === "filter" || kind === "disagreements") && (
          <Field label="At most this many solutions">
            <Input name="limit" type="number" min={1} max={5000} defaultValue={200} />
          </Field>
        )}
        {kind === "disagreements" && <p className="text-xs text-slate-600">Needs both an annotate run and a judge run above.</p>}
        {kind === "least-confident" && (
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Least confident under the rule" hint="Solutions ranked by their lowest label confidence under this rule of the annotate run chosen above; the queue audits that run and rule.">
              <Select required value={chosenRule} onChange={(e) => setConfidenceRule(e.target.value)} options={confidenceRuleOptions(labelRules).slice(1)} placeholder={annotateRunId ? "Choose…" : "Choose an annotate run above"} />
            </Field>
            <Field label="Number of solutions (N)">
              <Input name="count" type="number" min={1} max={5000} defaultValue={20} />
            </Field>
          </div>
        )}
        {(kind === "random" || kind === "stratified") && (
          <div className="grid gap-4 sm:grid-cols-3">
            <Field label="Run sampled">
              <Select required value={sampleRunId} onChange={(e) => setSampleRunId(e.target.value)} placeholder="Choose…" options={[...annotateRuns, ...judgeRuns].map(runOption)} />
            </Field>
            {kind === "random" ? (
              <Field label="Sample size">
                <Input name="size" type="number" min={1} max={5000} defaultValue={50} />
              </Field>
            ) : (
              <Field label="Per stratum">
                <Input name="perStratum" type="number" min={1} max={2500} defaultValue={25} />
              </Field>
            )}
            <Field label="Seed">
              <Input name="seed" type="number" min={0} defaultValue={0} />
            </Field>
          </div>
        )}
      </fieldset>
      {create.error && <ErrorAlert>{errorMessage(create.error)}</ErrorAlert>}
      <Button type="submit" variant="primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create queue"}
      </Button>
    </Card>
  );
}
