"use client";

import type { RouterInputs, RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Button, Card, CardHeader, ErrorAlert, Field, Input, Select, StatusBadge } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { anyRunActive, isRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { ExportFiles, exportTitle, sftExportDetails, SftSplits } from "../../exports/export-list";

type Spec = RouterInputs["export"]["start"]["spec"];
export type SftExportKind = "segmentation-sft" | "selection";
type SftSpec = Extract<Spec, { kind: SftExportKind }>;
type ExportRun = RouterOutputs["export"]["list"][number];

const FORMATS: [NonNullable<SftSpec["format"]>, string][] = [
  ["chat-jsonl", "Chat JSONL (OpenRLHF)"],
  ["trl-sft", "TRL SFT (JSONL)"],
  ["verl-sft", "verl SFT (Parquet)"],
];

const AGGREGATES: [Extract<SftSpec, { kind: "selection" }>["aggregate"], string][] = [
  ["mean", "mean of the chunk scores"],
  ["min", "lowest chunk score"],
  ["last", "last chunk score"],
];

/** What each kind reads and writes, and the held-out share it starts with (the API's default). */
const KINDS = {
  "segmentation-sft": {
    title: "Export SFT set",
    description: "self-segmentation SFT: the policy prompt with the problem, and each segmented response with its chunks in <chunk> tags",
    heldOut: 0.1,
  },
  selection: {
    title: "Export SFT set",
    description: "stepwise data selection: per problem, the correct response the judge scored best, for rejection-sampling fine-tuning",
    heldOut: 0,
  },
} as const satisfies Record<SftExportKind, { title: string; description: string; heldOut: number }>;

/** The export spec the form's fields say. */
function specOf(kind: SftExportKind, runId: string, form: FormData): SftSpec {
  const text = (name: string) => String(form.get(name) ?? "").trim();
  const number = (name: string) => Number(text(name));
  const common = { runId, format: text("format") as NonNullable<SftSpec["format"]>, seed: number("seed"), heldOutFraction: number("heldOutFraction") };
  if (kind === "segmentation-sft") return { kind, ...common, maxPerProblem: number("maxPerProblem"), includeIncorrect: form.get("includeIncorrect") === "on" };
  return { kind, ...common, aggregate: text("aggregate") as Extract<SftSpec, { kind: "selection" }>["aggregate"], ...(form.get("baseline") === "on" ? { baseline: "outcome" as const } : {}) };
}

/** The form: format, seed and held-out share for both kinds; how many per problem for segmentation-sft; the aggregate and the baseline for selection. */
function SftExportForm({ kind, runId }: { kind: SftExportKind; runId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [queued, setQueued] = useState(false);
  const start = useMutation(
    trpc.export.start.mutationOptions({
      onSuccess: () => {
        setQueued(true);
        void queryClient.invalidateQueries({ queryKey: trpc.export.list.queryKey() });
      },
    }),
  );
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setQueued(false);
    start.mutate({ spec: specOf(kind, runId, new FormData(event.currentTarget)) });
  };
  return (
    <form onSubmit={onSubmit} aria-label="Export an SFT set" className="space-y-3">
      <div className="grid gap-4 sm:grid-cols-4">
        <Field label="Format" hint="Every format also writes a dataset card (README.md) and a manifest with the launch command.">
          <Select name="format" defaultValue="chat-jsonl" options={FORMATS} data-testid="sft-export-format" />
        </Field>
        {kind === "segmentation-sft" ? (
          <Field label="Max per problem" hint="Responses kept per problem, drawn with the seed (the paper: 4).">
            <Input name="maxPerProblem" type="number" min={1} max={1024} step={1} defaultValue={4} required data-testid="sft-export-max-per-problem" />
          </Field>
        ) : (
          <Field label="Aggregate" hint="How a response's chunk scores make its score.">
            <Select name="aggregate" defaultValue="mean" options={AGGREGATES} required data-testid="sft-export-aggregate" />
          </Field>
        )}
        <Field label="Seed">
          <Input name="seed" type="number" min={0} max={2 ** 31 - 1} step={1} defaultValue={0} required data-testid="sft-export-seed" />
        </Field>
        <Field label="Held-out fraction" hint="Share of problems in the test split.">
          <Input name="heldOutFraction" type="number" min={0} max={0.5} step={0.01} defaultValue={KINDS[kind].heldOut} required data-testid="sft-export-held-out" />
        </Field>
      </div>
      {kind === "segmentation-sft" ? (
        <label className="flex items-center gap-2 text-sm">
          <input name="includeIncorrect" type="checkbox" data-testid="sft-export-include-incorrect" /> Include incorrect responses (otherwise only responses whose final answer is correct, as the paper)
        </label>
      ) : (
        <label className="flex items-center gap-2 text-sm">
          <input name="baseline" type="checkbox" data-testid="sft-export-baseline" /> Outcome-only baseline: a random correct response per problem instead of the judge&apos;s best
        </label>
      )}
      {start.error && <ErrorAlert>{errorMessage(start.error)}</ErrorAlert>}
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={start.isPending} data-testid="sft-export-submit">
          {start.isPending ? "Queueing…" : "Export"}
        </Button>
        {queued && <span className="text-sm text-slate-600">Queued; it appears in the list below.</span>}
      </div>
    </form>
  );
}

/** What an SFT export counted (responses, problems, those left out and why), by name. */
function SftCounts({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  if (entries.length === 0) return null;
  return (
    <dl aria-label="Counts" className="flex flex-wrap gap-x-4 gap-y-0.5 text-xs" data-testid="sft-export-counts">
      {entries.map(([name, value]) => (
        <div key={name} className="flex gap-1">
          <dt className="text-slate-500">{name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}</dt>
          <dd className="tabular-nums" data-count={name}>
            {value.toLocaleString("en-US")}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function SftExportItem({ run, canDownload }: { run: ExportRun; canDownload: boolean }) {
  const details = sftExportDetails(run.spec);
  return (
    <li className="space-y-2 border-t border-slate-100 pt-3 first:border-0 first:pt-0" data-testid="sft-export-row" data-run-id={run.id} data-status={run.status}>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
          {exportTitle(run)}
        </Link>
        <StatusBadge status={run.status} />
        {details && <span className="text-xs text-slate-500">{details}</span>}
        <span className="ml-auto text-xs text-slate-500">{run.createdAt.toLocaleString()}</span>
      </div>
      {run.error && <p className="text-xs whitespace-pre-wrap text-red-700">{run.error}</p>}
      {run.sft && (
        <>
          <SftSplits sft={run.sft} />
          <SftCounts counts={run.sft.counts} />
        </>
      )}
      {run.files.length > 0 && <ExportFiles run={run} canDownload={canDownload} />}
    </li>
  );
}

/** This run's SFT exports of one kind, newest first, live while any is going. */
function SftExportList({ kind, runId, canDownload }: { kind: SftExportKind; runId: string; canDownload: boolean }) {
  const trpc = useTRPC();
  const exports = useQuery({
    ...trpc.export.list.queryOptions({ sourceRunId: runId }),
    refetchInterval: (query) => (anyRunActive(query.state.data) ? 1500 : false),
  });
  if (exports.error) return <ErrorAlert>{errorMessage(exports.error)}</ErrorAlert>;
  if (!exports.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const mine = exports.data.filter((run) => run.spec?.kind === kind);
  if (mine.length === 0) return <p className="text-sm text-slate-600">No SFT exports of this run yet.</p>;
  return (
    <ul className="space-y-3" aria-label="SFT exports of this run" data-active={mine.some((run) => isRunActive(run.status))}>
      {mine.map((run) => (
        <SftExportItem key={run.id} run={run} canDownload={canDownload} />
      ))}
    </ul>
  );
}

/**
 * A completed segment run's (segmentation-sft) or judge run's (selection) SFT exports:
 * the form for those who may export, and the exports made, with their splits, counts
 * and files.
 */
export function SftExportPanel({ kind, runId }: { kind: SftExportKind; runId: string }) {
  const canExport = useCan("research.manage");
  return (
    <Card as="section" aria-label="SFT exports" className="space-y-4 text-sm" data-testid="sft-export-panel">
      <CardHeader title={KINDS[kind].title} description={KINDS[kind].description} />
      {canExport && <SftExportForm kind={kind} runId={runId} />}
      <SftExportList kind={kind} runId={runId} canDownload={canExport} />
    </Card>
  );
}
