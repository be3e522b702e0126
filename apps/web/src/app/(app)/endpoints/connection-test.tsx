"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { SERVER_KIND_LABELS } from "@stepwiser/inference/server-kind";
import { DataTable, dataColumns, ErrorAlert, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";

type TestResult = RouterOutputs["endpoint"]["test"];

const MODELS_SHOWN = 20;

type Replica = TestResult["replicas"][number];

const column = dataColumns<Replica>();
const ok = (text: string) => <span className="text-green-800">{text}</span>;
const failed = (text: string) => <span className="text-red-800">{text}</span>;

function replicaColumns(model: string): DataColumn<Replica>[] {
  return [
    column.accessor("baseUrl", { header: "Replica", meta: { className: "font-mono" } }),
    column.display({
      id: "models",
      header: "/models",
      cell: ({ row: { original: r } }) =>
        r.ok ? (
          ok("ok")
        ) : (
          <span className="text-red-800">
            failed: {r.error}
            {!r.baseUrl.endsWith("/v1") && <span className="block text-slate-500">Most servers expect the base URL to end in /v1.</span>}
          </span>
        ),
    }),
    column.accessor("latencyMs", { header: "Latency", meta: { align: "right" }, cell: (c) => `${c.getValue()} ms` }),
    column.display({
      id: "server",
      header: "Server",
      cell: ({ row: { original: r } }) => (r.serverKind ? SERVER_KIND_LABELS[r.serverKind] : "—"),
    }),
    column.display({ id: "serves", header: `Serves ${model}`, cell: ({ row: { original: r } }) => (r.ok ? (r.servesModel ? ok("yes") : failed("no")) : "—") }),
    column.display({
      id: "health",
      header: "/health",
      cell: ({ row: { original: r } }) =>
        r.health.ok ? (
          ok(`up (${r.health.latencyMs} ms)`)
        ) : (
          <span className="text-slate-600" title="Hosted APIs often have no /health; only vLLM and SGLang servers answer it.">
            {r.health.error ?? "unavailable"}
          </span>
        ),
    }),
    column.display({
      id: "served",
      header: "Models served",
      meta: { className: "max-w-md break-words text-slate-700" },
      cell: ({ row: { original: r } }) => (
        <>
          {r.models.length === 0 ? "—" : r.models.slice(0, MODELS_SHOWN).join(", ")}
          {r.models.length > MODELS_SHOWN && <span className="text-slate-500"> and {r.models.length - MODELS_SHOWN} more</span>}
        </>
      ),
    }),
  ];
}

/** Per-replica outcome of `endpoint.test`: /models (with the stored key, from the server) and /health. */
export function ConnectionTestResult({ result, error }: { result: TestResult | undefined; error: unknown }) {
  if (error) return <ErrorAlert>{errorMessage(error)}</ErrorAlert>;
  if (!result) return null;
  const failed = result.replicas.filter((r) => !r.ok || !r.servesModel).length;
  return (
    <div className="space-y-2" aria-live="polite">
      <p className={`text-sm font-medium ${result.ok ? "text-green-800" : "text-red-800"}`}>
        {result.ok
          ? `All ${result.replicas.length} replica${result.replicas.length === 1 ? "" : "s"} answer and serve ${result.model}.`
          : `${failed} of ${result.replicas.length} replica${result.replicas.length === 1 ? "" : "s"} failed.`}{" "}
        <span className="font-normal text-slate-500">Checked {result.checkedAt.toLocaleTimeString()}.</span>
      </p>
      <DataTable look="compact" data={result.replicas} columns={replicaColumns(result.model)} getRowId={(r) => r.baseUrl} rowAttributes={() => ({ className: "align-top" })} />
    </div>
  );
}
