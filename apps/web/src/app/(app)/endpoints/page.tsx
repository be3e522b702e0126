"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
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

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Endpoints</h1>
        {isAdmin && form.mode === "closed" && (
          <button type="button" onClick={() => setForm({ mode: "add" })} className="ml-auto rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white">
            Add endpoint
          </button>
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

      {rows.length > 0 && (
        <table className="w-full border-collapse overflow-hidden rounded-lg bg-white text-sm shadow-sm">
          <thead className="bg-slate-100 text-left text-slate-600">
            <tr>
              <th className="px-3 py-2">Name</th>
              <th className="px-3 py-2">Role</th>
              <th className="px-3 py-2">Model</th>
              <th className="px-3 py-2">Replicas</th>
              <th className="px-3 py-2 text-right">Concurrency</th>
              <th className="px-3 py-2">API key</th>
              <th className="px-3 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((endpoint) => (
              <EndpointTableRow
                key={endpoint.id}
                endpoint={endpoint}
                watched={endpoint.id === watched?.id}
                canTest={canTest}
                isAdmin={isAdmin}
                onWatch={() => setWatchedId(endpoint.id)}
                onEdit={() => setForm({ mode: "edit", endpoint })}
                onDelete={() => onDelete(endpoint)}
                deleting={remove.isPending && remove.variables?.id === endpoint.id}
              />
            ))}
          </tbody>
        </table>
      )}

      {watched && <MetricsPanel key={watched.id} endpoint={watched} />}
      <WorkersPanel />
    </div>
  );
}

function EndpointTableRow(props: {
  endpoint: EndpointRow;
  watched: boolean;
  canTest: boolean;
  isAdmin: boolean;
  deleting: boolean;
  onWatch: () => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { endpoint } = props;
  const trpc = useTRPC();
  const test = useMutation(trpc.endpoint.test.mutationOptions());
  const button = "rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-50 disabled:opacity-60";
  return (
    <Fragment>
      <tr className={`border-t border-slate-100 align-top ${props.watched ? "bg-blue-50/50" : ""}`}>
        <td className="px-3 py-2 font-medium">{endpoint.name}</td>
        <td className="px-3 py-2">
          <span className="inline-block rounded bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700">{endpoint.role}</span>
        </td>
        <td className="px-3 py-2 font-mono text-xs">{endpoint.model}</td>
        <td className="px-3 py-2">
          <span className="tabular-nums">{endpoint.baseUrls.length}</span>
          <ul className="font-mono text-xs text-slate-600">
            {endpoint.baseUrls.map((url) => (
              <li key={url}>{url}</li>
            ))}
          </ul>
        </td>
        <td className="px-3 py-2 text-right tabular-nums" title="requests in flight per replica">
          {endpoint.maxConcurrency} per replica
        </td>
        <td className="px-3 py-2">{endpoint.hasApiKey ? "set" : "none"}</td>
        <td className="px-3 py-2">
          <div className="flex flex-wrap justify-end gap-1.5">
            {props.canTest && (
              <button type="button" className={button} disabled={test.isPending} onClick={() => test.mutate({ id: endpoint.id })}>
                {test.isPending ? "Testing…" : "Test connection"}
              </button>
            )}
            <button type="button" className={button} disabled={props.watched} onClick={props.onWatch} aria-pressed={props.watched}>
              {props.watched ? "Watching metrics" : "Watch metrics"}
            </button>
            {props.isAdmin && (
              <>
                <button type="button" className={button} onClick={props.onEdit}>
                  Edit
                </button>
                <button type="button" className={`${button} text-red-700`} disabled={props.deleting} onClick={props.onDelete}>
                  Delete
                </button>
              </>
            )}
          </div>
        </td>
      </tr>
      {(test.data || test.error) && (
        <tr className="bg-slate-50">
          <td colSpan={7} className="px-3 py-2">
            <ConnectionTestResult result={test.data} error={test.error} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}
