"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Badge, Button, Card, DataTable, dataColumns, ErrorAlert, Field, Input, Notice, Pager, pageCountOf, ProgressBar, Select, StatusBadge, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { anyRunActive, isRunActive } from "~/lib/run-status";
import { useCan } from "~/lib/session-context";
import { useSearchParamsState } from "~/lib/url-state";
import { useTRPC } from "~/trpc/react";
import {
  cancellable,
  CLEAR_FILTERS,
  compareTarget,
  filterChange,
  formatAverageF1,
  formatCost,
  formatDuration,
  formatMcAgreement,
  formatShare,
  formatTokens,
  hasFilters,
  progressPercent,
  readRunsView,
  RUN_KINDS,
  RUN_STATUSES,
  runListInput,
  sortChange,
  toggledList,
  type RunSort,
  type RunsView,
} from "./runs-view";

type Run = RouterOutputs["run"]["list"]["runs"][number];
type FilterOptions = RouterOutputs["run"]["filterOptions"];
type Update = (changes: Record<string, string | undefined>) => void;

const kindName = (kind: string) => kind.replaceAll("_", "-");

function RunNameCell({ run }: { run: Run }) {
  return (
    <div className="min-w-48">
      <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
        {run.name}
      </Link>
      {run.tags.length > 0 && (
        <div className="mt-0.5 flex flex-wrap gap-1" aria-label="Tags">
          {run.tags.map((tag) => (
            <Badge key={tag}>{tag}</Badge>
          ))}
        </div>
      )}
    </div>
  );
}

function StatusCell({ run }: { run: Run }) {
  const percent = progressPercent(run);
  return (
    <div className="w-36 space-y-1">
      <StatusBadge status={run.status} />
      {isRunActive(run.status) && (
        <div className="flex items-center gap-2" data-testid="run-progress">
          <ProgressBar done={run.unitsDone} total={run.unitsTotal} label={`${run.name} progress`} />
          <span className="text-xs text-slate-600 tabular-nums">{percent === null ? "…" : `${percent}%`}</span>
        </div>
      )}
      {run.unitsFailed > 0 && <span className="block text-xs text-amber-800">{run.unitsFailed} units failed</span>}
    </div>
  );
}

function columns(selected: ReadonlyMap<string, Run>, toggle: (run: Run, on: boolean) => void, pageRuns: readonly Run[]): DataColumn<Run>[] {
  const column = dataColumns<Run>();
  const allOnPage = pageRuns.length > 0 && pageRuns.every((run) => selected.has(run.id));
  return [
    column.display({
      id: "select",
      header: () => (
        <input type="checkbox" aria-label="Select every run on this page" checked={allOnPage} onChange={(e) => pageRuns.forEach((run) => toggle(run, e.target.checked))} />
      ),
      cell: ({ row: { original: run } }) => <input type="checkbox" aria-label={`Select ${run.name}`} checked={selected.has(run.id)} onChange={(e) => toggle(run, e.target.checked)} />,
      meta: { className: "w-8" },
    }),
    column.accessor("name", { header: "Name", meta: { sort: "name" }, cell: ({ row: { original: run } }) => <RunNameCell run={run} /> }),
    column.accessor("kind", { header: "Kind", cell: (c) => kindName(c.getValue()), meta: { className: "whitespace-nowrap" } }),
    column.accessor("dataset", {
      header: "Dataset",
      cell: ({ row: { original: run } }) =>
        run.dataset ? (
          <Link href={`/datasets/${run.dataset.id}`} className="text-blue-700 hover:underline">
            {run.dataset.name}
          </Link>
        ) : (
          <span className="text-slate-400">—</span>
        ),
    }),
    column.accessor("models", {
      header: "Models",
      cell: ({ row: { original: run } }) =>
        run.models.length ? (
          <ul className="text-xs whitespace-nowrap">
            {run.models.map((m) => (
              <li key={m.role} title={`${m.role} model`}>
                {run.models.length > 1 && <span className="text-slate-500">{m.role}: </span>}
                <span className="font-mono">{m.model}</span>
              </li>
            ))}
          </ul>
        ) : (
          <span className="text-slate-400">—</span>
        ),
    }),
    column.accessor("status", { header: "Status", meta: { sort: "status" }, cell: ({ row: { original: run } }) => <StatusCell run={run} /> }),
    column.accessor("durationSeconds", {
      header: "Duration",
      meta: { align: "right", sort: "duration", className: "whitespace-nowrap" },
      cell: (c) => {
        const seconds = c.getValue();
        return seconds === null ? <Missing /> : <span title={`${seconds.toLocaleString("en-US")} s from start to end`}>{formatDuration(seconds)}</span>;
      },
    }),
    ...resultColumns(column),
    column.display({
      id: "tokens",
      header: "Tokens",
      meta: { align: "right", sort: "tokens" },
      cell: ({ row: { original: run } }) => (
        <span title={`${run.promptTokens.toLocaleString("en-US")} prompt (${run.cachedTokens.toLocaleString("en-US")} cached) + ${run.completionTokens.toLocaleString("en-US")} completion`}>
          {formatTokens(run.promptTokens + run.completionTokens)}
        </span>
      ),
    }),
    column.accessor("cost", {
      header: "Cost",
      meta: { align: "right", sort: "cost" },
      cell: (c) => {
        const { text, title } = formatCost(c.getValue());
        return (
          <span title={title} className={c.getValue().usd === null ? "cursor-help text-slate-400" : undefined} data-testid="run-cost">
            {text}
          </span>
        );
      },
    }),
    column.accessor("createdBy", {
      header: "Created by",
      cell: (c) => {
        const user = c.getValue();
        return user ? <span title={user.email}>{user.name || user.email}</span> : <span className="text-slate-400">—</span>;
      },
    }),
    column.accessor("createdAt", {
      header: "Created",
      meta: { sort: "createdAt", className: "whitespace-nowrap text-slate-600" },
      cell: (c) => (
        <time dateTime={c.getValue().toISOString()} title={c.getValue().toLocaleString()}>
          {c.getValue().toLocaleDateString()}
          <span className="block text-xs">{c.getValue().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</span>
        </time>
      ),
    }),
  ];
}

const Missing = () => <span className="text-slate-400">—</span>;

/** The figures each kind ranks its finished runs by, one sortable column each ("—" on runs of other kinds). */
function resultColumns(column: ReturnType<typeof dataColumns<Run>>): DataColumn<Run>[] {
  const figure = (id: RunSort, header: string, read: (run: Run) => { text: string; title: string } | null) =>
    column.display({
      id,
      header,
      meta: { align: "right", sort: id, className: "whitespace-nowrap tabular-nums" },
      cell: ({ row: { original: run } }) => {
        const shown = read(run);
        return shown ? (
          <span title={shown.title} data-testid={`run-${id}`}>
            {shown.text}
          </span>
        ) : (
          <Missing />
        );
      },
    });
  return [
    figure("averageF1", "Average F1", (run) => (run.results.averageF1 ? formatAverageF1(run.results.averageF1) : null)),
    figure("prmscore", "PRMScore", (run) => (run.results.prmscore === null ? null : { text: run.results.prmscore.toFixed(3), title: "PRMBench's PRMScore" })),
    figure("negativeShare", "Negative share", (run) =>
      run.results.negativeShare === null ? null : { text: formatShare(run.results.negativeShare), title: "Negative verdicts among the judge's readable (Positive or Negative) samples" },
    ),
    figure("mcAgreement", "Agreement with MC", (run) => (run.results.mcAgreement ? formatMcAgreement(run.results.mcAgreement) : null)),
    figure("labelBalance", "Label balance", (run) =>
      run.results.labelBalance === null ? null : { text: `${formatShare(run.results.labelBalance)} Positive`, title: `Positive labels among the run's labels under ${run.results.rule ?? "its first label rule"}` },
    ),
    figure("meanConfidence", "Mean confidence", (run) =>
      run.results.meanConfidence === null ? null : { text: run.results.meanConfidence.toFixed(2), title: `Mean label confidence under ${run.results.rule ?? "its first label rule"}` },
    ),
  ];
}

/** A multi-valued filter as a row of checkboxes. */
function CheckboxFilter<T extends string>({ legend, values, chosen, label, onChange }: { legend: string; values: readonly T[]; chosen: readonly T[]; label: (value: T) => string; onChange: (value: string | undefined) => void }) {
  return (
    <fieldset className="text-sm">
      <legend className="text-slate-700">{legend}</legend>
      <div className="mt-1 flex flex-wrap gap-x-3 gap-y-1">
        {values.map((value) => (
          <label key={value} className="flex items-center gap-1 text-slate-700">
            <input type="checkbox" checked={chosen.includes(value)} onChange={(e) => onChange(toggledList(chosen, value, e.target.checked))} />
            {label(value)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function RunFilters({ view, options, update }: { view: RunsView; options: FilterOptions | undefined; update: Update }) {
  const set = (changes: Record<string, string | undefined>) => update(filterChange(changes));
  // The search box writes to the URL when typing pauses, so each key does not start a query.
  const [search, setSearch] = useState(view.search ?? "");
  const latestUpdate = useRef(update);
  useEffect(() => {
    latestUpdate.current = update;
  });
  useEffect(() => {
    if (search.trim() === (view.search ?? "")) return;
    const timer = setTimeout(() => latestUpdate.current(filterChange({ q: search.trim() || undefined })), 300);
    return () => clearTimeout(timer);
  }, [search, view.search]);
  const choice = (values: readonly string[] | undefined, current: string | undefined) => {
    const known = values ?? [];
    return current && !known.includes(current) ? [...known, current] : known;
  };
  return (
    <Card as="section" aria-label="Filter runs" padding="sm" className="space-y-3">
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Field label="Search names" className="col-span-2">
          <Input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="part of a run's name" />
        </Field>
        <Field label="Dataset">
          <Select
            value={view.datasetId ?? ""}
            onChange={(e) => set({ dataset: e.target.value || undefined })}
            placeholder="Any"
            options={[...(options?.datasets ?? []).map((d) => [d.id, d.name] as const), ...(view.datasetId && !options?.datasets.some((d) => d.id === view.datasetId) ? [[view.datasetId, view.datasetId] as const] : [])]}
          />
        </Field>
        <Field label="Model">
          <Select value={view.model ?? ""} onChange={(e) => set({ model: e.target.value || undefined })} placeholder="Any" options={choice(options?.models, view.model).map((m) => [m, m] as const)} />
        </Field>
        <Field label="Tag">
          <Select value={view.tag ?? ""} onChange={(e) => set({ tag: e.target.value || undefined })} placeholder="Any" options={choice(options?.tags, view.tag).map((t) => [t, t] as const)} />
        </Field>
        <Field label="Created by">
          <Select
            value={view.createdById ?? ""}
            onChange={(e) => set({ by: e.target.value || undefined })}
            placeholder="Anyone"
            options={[...(options?.creators ?? []).map((u) => [u.id, u.name || u.email] as const), ...(view.createdById && !options?.creators.some((u) => u.id === view.createdById) ? [[view.createdById, view.createdById] as const] : [])]}
          />
        </Field>
      </div>
      <div className="flex flex-wrap items-end gap-x-6 gap-y-3">
        <CheckboxFilter legend="Kind" values={RUN_KINDS} chosen={view.kinds} label={kindName} onChange={(kind) => set({ kind })} />
        <CheckboxFilter legend="Status" values={RUN_STATUSES} chosen={view.statuses} label={(s) => s.replaceAll("_", " ")} onChange={(status) => set({ status })} />
        <label className="flex items-center gap-1 text-sm text-slate-700" title="Import and export runs; a kind filter naming import or export lists them either way">
          <input type="checkbox" checked={view.includeDataJobs} onChange={(e) => set({ data: e.target.checked ? "1" : undefined })} />
          Show data jobs
        </label>
        <Field label="Created from">
          <Input type="date" value={view.createdFrom ?? ""} max={view.createdTo} onChange={(e) => set({ from: e.target.value || undefined })} />
        </Field>
        <Field label="Created to">
          <Input type="date" value={view.createdTo ?? ""} min={view.createdFrom} onChange={(e) => set({ to: e.target.value || undefined })} />
        </Field>
        {hasFilters(view) && (
          <Button variant="subtle" onClick={() => {
              setSearch("");
              update(CLEAR_FILTERS);
            }}
          >
            Clear filters
          </Button>
        )}
      </div>
    </Card>
  );
}

/** The selection's actions: compare (benchmark or judge runs of one dataset) and cancel (queued or running runs). */
function SelectionBar({ selected, clear }: { selected: Run[]; clear: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const canManage = useCan("research.manage");
  const [message, setMessage] = useState<string | null>(null);
  const cancelMany = useMutation(
    trpc.run.cancelMany.mutationOptions({
      onSuccess: (result) => {
        setMessage(
          `Cancel requested for ${result.cancelled.length} run${result.cancelled.length === 1 ? "" : "s"}` +
            (result.skipped.length ? `; ${result.skipped.length} skipped (${result.skipped.map((s) => s.reason).join("; ")})` : "") +
            ".",
        );
        void queryClient.invalidateQueries({ queryKey: trpc.run.list.queryKey() });
      },
    }),
  );
  const target = compareTarget(selected);
  const toCancel = cancellable(selected);
  if (selected.length === 0 && !message) return null;
  return (
    <div className="space-y-2">
      {selected.length > 0 && (
        <div className="flex flex-wrap items-center gap-3 text-sm" data-testid="run-selection">
          <span className="font-medium">{selected.length} selected</span>
          <Button
            variant="accent"
            title={target.problem ?? "Open Compare with these runs"}
            onClick={() => {
              if (target.href) router.push(target.href);
              else setMessage(target.problem);
            }}
          >
            Compare
          </Button>
          {canManage && (
            <Button
              variant="danger"
              disabled={toCancel.ids.length === 0 || cancelMany.isPending}
              title={toCancel.ids.length === 0 ? "Only queued or running runs can be cancelled" : undefined}
              onClick={() => {
                setMessage(null);
                cancelMany.mutate({ ids: toCancel.ids });
              }}
            >
              {cancelMany.isPending ? "Cancelling…" : `Cancel ${toCancel.ids.length} run${toCancel.ids.length === 1 ? "" : "s"}`}
            </Button>
          )}
          <Button variant="subtle" onClick={clear}>
            Clear selection
          </Button>
        </div>
      )}
      {cancelMany.error && <ErrorAlert>{errorMessage(cancelMany.error)}</ErrorAlert>}
      {message && <Notice>{message}</Notice>}
    </div>
  );
}

/** The runs list: filters, the selection's actions, the table and its pager. */
export function RunsList() {
  const trpc = useTRPC();
  const { params, update: updateUrl } = useSearchParamsState();
  // Changes show at once, before the address bar catches up (a checkbox must not lag its click);
  // once the URL has moved on, it alone tells.
  const [pending, setPending] = useState<{ base: string; changes: Record<string, string | undefined> }>({ base: "", changes: {} });
  const base = params.toString();
  const current = new URLSearchParams(base);
  if (pending.base === base) {
    for (const [key, value] of Object.entries(pending.changes)) {
      if (value) current.set(key, value);
      else current.delete(key);
    }
  }
  const view = readRunsView(current);
  const update = (changes: Record<string, string | undefined>) => {
    setPending((p) => ({ base, changes: { ...(p.base === base ? p.changes : {}), ...changes } }));
    updateUrl(changes);
  };
  const list = useQuery({
    ...trpc.run.list.queryOptions(runListInput(view)),
    placeholderData: keepPreviousData,
    // Live while any listed run is going: progress bars and counters move.
    refetchInterval: (query) => (anyRunActive(query.state.data?.runs) ? 2000 : false),
  });
  const options = useQuery(trpc.run.filterOptions.queryOptions());
  const [selected, setSelected] = useState<ReadonlyMap<string, Run>>(new Map());
  const runs = list.data?.runs ?? [];
  // Selected runs shown on this page carry their latest status.
  const selection = [...selected.values()].map((run) => runs.find((r) => r.id === run.id) ?? run);
  const toggle = (run: Run, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(run.id, run);
      else next.delete(run.id);
      return next;
    });

  return (
    <div className="space-y-3">
      <RunFilters view={view} options={options.data} update={update} />
      <SelectionBar selected={selection} clear={() => setSelected(new Map())} />
      {list.error && <ErrorAlert>{errorMessage(list.error)}</ErrorAlert>}
      {!list.data && !list.error && <p className="text-sm text-slate-500">Loading…</p>}
      {list.data && (
        <>
          <p className="text-sm text-slate-600" data-testid="runs-count">
            {list.data.total.toLocaleString("en-US")} run{list.data.total === 1 ? "" : "s"}
            {hasFilters(view) ? " matching" : ""}
          </p>
          <DataTable
            data={runs}
            columns={columns(selected, toggle, runs)}
            getRowId={(run) => run.id}
            rowAttributes={(run) => ({ "data-run-id": run.id, "data-status": run.status, "data-kind": run.kind })}
            sort={{ by: view.sort, order: view.order, onSort: (sort) => update(sortChange(view, sort as RunSort)) }}
            empty={hasFilters(view) ? "No run matches these filters." : "No runs yet."}
            testId="runs-table"
          />
          <Pager page={view.page} pageCount={pageCountOf(list.data.total, list.data.pageSize)} hasNext={list.data.hasMore} onPage={(page) => update({ page: page > 1 ? String(page) : undefined })} testId="runs-pager" />
        </>
      )}
    </div>
  );
}
