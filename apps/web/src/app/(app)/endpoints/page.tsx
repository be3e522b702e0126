"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { SERVER_KIND_LABELS } from "@stepwiser/inference/server-kind";
import { Button, cx, DataTable, dataColumns, ErrorAlert, Notice, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { protocolLabels } from "~/lib/judge-protocols";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { ConnectionTestResult } from "./connection-test";
import { EndpointForm, type EndpointRow } from "./endpoint-form";
import { MetricsPanel } from "./metrics-panel";
import { WorkersPanel } from "./workers-panel";

type FormState = { mode: "closed" } | { mode: "add" } | { mode: "edit"; endpoint: EndpointRow };

export default function EndpointsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const isAdmin = useCan("endpoints.manage");
  const canTest = useCan("research.manage");
  const endpoints = useQuery(trpc.endpoint.list.queryOptions());
  const remove = useMutation(
    trpc.endpoint.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.endpoint.list.queryKey() }) }),
  );
  const [form, setForm] = useState<FormState>({ mode: "closed" });
  const [watchedId, setWatchedId] = useState<string | null>(null);

  const tests = useConnectionTests();

  const rows = endpoints.data ?? [];
  // The first endpoint is watched until another is picked (or the watched one is deleted).
  const watched = rows.find((e) => e.id === watchedId) ?? rows[0];

  function onDelete(endpoint: EndpointRow) {
    if (!window.confirm(`Delete the endpoint "${endpoint.name}"? Runs already launched keep their own copy of its URLs.`)) return;
    remove.mutate(
      { id: endpoint.id },
      {
        onSuccess: () => {
          if (form.mode === "edit" && form.endpoint.id === endpoint.id) setForm({ mode: "closed" });
        },
      },
    );
  }

  const columns = endpointColumns({
    watchedId: watched?.id,
    canTest,
    isAdmin,
    testing: (id) => tests.outcomes[id]?.pending === true,
    deleting: (id) => remove.isPending && remove.variables?.id === id,
    onTest: (endpoint) => tests.start(endpoint.id),
    onWatch: (endpoint) => setWatchedId(endpoint.id),
    onEdit: (endpoint) => setForm({ mode: "edit", endpoint }),
    onDelete,
  });

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Endpoints</h1>
        {isAdmin && form.mode === "closed" && (
          <Button variant="dark" onClick={() => setForm({ mode: "add" })} className="ml-auto">
            Add endpoint
          </Button>
        )}
      </div>
      <p className="max-w-3xl text-sm text-slate-600">
        OpenAI-compatible inference servers (vLLM, SGLang, the simulated cluster) that runs send their requests to. A run copies the
        endpoint&apos;s URLs and model when it is launched.
      </p>

      {isAdmin && form.mode !== "closed" && (
        <EndpointForm
          key={form.mode === "edit" ? form.endpoint.id : "new"}
          endpoint={form.mode === "edit" ? form.endpoint : null}
          onDone={() => setForm({ mode: "closed" })}
        />
      )}

      {endpoints.error && <ErrorAlert>{errorMessage(endpoints.error)}</ErrorAlert>}
      {remove.error && <ErrorAlert>{errorMessage(remove.error)}</ErrorAlert>}
      {endpoints.isPending && <p className="text-sm text-slate-500">Loading…</p>}
      {endpoints.data?.length === 0 && (
        <p className="text-sm text-slate-600">No endpoints yet.{isAdmin ? " Add one above." : " Ask an admin to add one."}</p>
      )}

      {rows.some((endpoint) => endpoint.cacheReport?.warning) && (
        <Notice>
          {rows.flatMap((endpoint) =>
            endpoint.cacheReport?.warning
              ? [
                  <span key={endpoint.id} className="block">
                    <span className="font-medium">{endpoint.name}</span>: {endpoint.cacheReport.warning}.
                  </span>,
                ]
              : [],
          )}
        </Notice>
      )}

      {rows.length > 0 && (
        <DataTable
          data={rows}
          columns={columns}
          getRowId={(endpoint) => endpoint.id}
          rowAttributes={(endpoint) => ({ className: cx("align-top", endpoint.id === watched?.id && "bg-blue-50/50") })}
          renderDetail={(endpoint) => {
            const outcome = tests.outcomes[endpoint.id];
            return outcome && !outcome.pending ? <ConnectionTestResult result={outcome.result} error={outcome.error} /> : null;
          }}
        />
      )}

      {watched && <MetricsPanel key={watched.id} endpoint={watched} />}
      <WorkersPanel />
    </div>
  );
}

type TestResult = RouterOutputs["endpoint"]["test"];
type TestOutcome = { pending: true } | { pending: false; result?: TestResult; error?: unknown };

/** Connection tests of several endpoints at once: each row shows its own endpoint's outcome. */
function useConnectionTests() {
  const trpc = useTRPC();
  const [outcomes, setOutcomes] = useState<Record<string, TestOutcome>>({});
  const settle = (id: string, outcome: TestOutcome) => setOutcomes((all) => ({ ...all, [id]: outcome }));
  const test = useMutation(
    trpc.endpoint.test.mutationOptions({
      onMutate: ({ id }) => settle(id, { pending: true }),
      onSuccess: (result, { id }) => settle(id, { pending: false, result }),
      onError: (error, { id }) => settle(id, { pending: false, error }),
    }),
  );
  return { outcomes, start: (id: string) => test.mutate({ id }) };
}

const column = dataColumns<EndpointRow>();

interface EndpointActions {
  watchedId: string | undefined;
  canTest: boolean;
  isAdmin: boolean;
  testing: (id: string) => boolean;
  deleting: (id: string) => boolean;
  onTest: (endpoint: EndpointRow) => void;
  onWatch: (endpoint: EndpointRow) => void;
  onEdit: (endpoint: EndpointRow) => void;
  onDelete: (endpoint: EndpointRow) => void;
}

function endpointColumns(actions: EndpointActions): DataColumn<EndpointRow>[] {
  return [
    column.accessor("name", { header: "Name", meta: { className: "font-medium" } }),
    column.accessor("role", { header: "Role", cell: (c) => <span className="inline-block rounded bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700">{c.getValue()}</span> }),
    column.accessor("model", { header: "Model", meta: { className: "font-mono text-xs" } }),
    column.accessor("serverKind", {
      header: "Server",
      cell: (c) => (
        <span title={c.getValue() === "auto" ? "read from the server's model list" : undefined}>
          {SERVER_KIND_LABELS[c.getValue() as keyof typeof SERVER_KIND_LABELS] ?? c.getValue()}
        </span>
      ),
    }),
    column.display({
      id: "replicas",
      header: "Replicas",
      cell: ({ row: { original: endpoint } }) => (
        <>
          <span className="tabular-nums">{endpoint.baseUrls.length}</span>
          <ul className="font-mono text-xs text-slate-600">
            {endpoint.baseUrls.map((url) => (
              <li key={url}>{url}</li>
            ))}
          </ul>
        </>
      ),
    }),
    column.accessor("maxConcurrency", {
      header: "Concurrency",
      meta: { align: "right" },
      cell: (c) => <span title="requests in flight per replica">{c.getValue()} per replica</span>,
    }),
    column.display({
      id: "prices",
      header: "Prices (USD / 1M tokens)",
      cell: ({ row: { original: e } }) =>
        e.promptPricePerMTokens === null || e.completionPricePerMTokens === null ? (
          <span className="text-slate-400">none</span>
        ) : (
          <span className="text-xs tabular-nums" title="prompt / cached prompt / completion">
            {e.promptPricePerMTokens} / {e.cachedPromptPricePerMTokens ?? e.promptPricePerMTokens} / {e.completionPricePerMTokens}
          </span>
        ),
    }),
    column.accessor("protocols", {
      header: "Judge protocols",
      cell: (c) => (
        <ul className="flex flex-wrap gap-1" aria-label="judge protocols">
          {protocolLabels(c.getValue()).map((label, i) => (
            <li key={c.getValue()[i]} title={c.getValue()[i]} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">
              {label}
            </li>
          ))}
        </ul>
      ),
    }),
    column.accessor("hasApiKey", { header: "API key", cell: (c) => (c.getValue() ? "set" : "none") }),
    column.display({
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      cell: ({ row: { original: endpoint } }) => {
        const watched = endpoint.id === actions.watchedId;
        return (
          <div className="flex flex-wrap justify-end gap-1.5">
            {actions.canTest && (
              <Button size="sm" className="text-xs" disabled={actions.testing(endpoint.id)} onClick={() => actions.onTest(endpoint)}>
                {actions.testing(endpoint.id) ? "Testing…" : "Test connection"}
              </Button>
            )}
            <Button size="sm" className="text-xs" disabled={watched} onClick={() => actions.onWatch(endpoint)} aria-pressed={watched}>
              {watched ? "Watching metrics" : "Watch metrics"}
            </Button>
            {actions.isAdmin && (
              <>
                <Button size="sm" className="text-xs" onClick={() => actions.onEdit(endpoint)}>
                  Edit
                </Button>
                <Button size="sm" variant="danger" className="text-xs" disabled={actions.deleting(endpoint.id)} onClick={() => actions.onDelete(endpoint)}>
                  Delete
                </Button>
              </>
            )}
          </div>
        );
      },
    }),
  ];
}
