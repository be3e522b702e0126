"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";

type TestResult = RouterOutputs["endpoint"]["test"];

const MODELS_SHOWN = 20;

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
      <table className="w-full border-collapse text-xs">
        <thead className="text-left text-slate-500">
          <tr>
            <th className="py-1 pr-3">Replica</th>
            <th className="py-1 pr-3">/models</th>
            <th className="py-1 pr-3 text-right">Latency</th>
            <th className="py-1 pr-3">Serves {result.model}</th>
            <th className="py-1 pr-3">/health</th>
            <th className="py-1">Models served</th>
          </tr>
        </thead>
        <tbody>
          {result.replicas.map((r) => (
            <tr key={r.baseUrl} className="border-t border-slate-100 align-top">
              <td className="py-1 pr-3 font-mono">{r.baseUrl}</td>
              <td className="py-1 pr-3">
                {r.ok ? (
                  <span className="text-green-800">ok</span>
                ) : (
                  <span className="text-red-800">
                    failed: {r.error}
                    {!r.baseUrl.endsWith("/v1") && <span className="block text-slate-500">Most servers expect the base URL to end in /v1.</span>}
                  </span>
                )}
              </td>
              <td className="py-1 pr-3 text-right tabular-nums">{r.latencyMs} ms</td>
              <td className="py-1 pr-3">{r.ok ? r.servesModel ? <span className="text-green-800">yes</span> : <span className="text-red-800">no</span> : "—"}</td>
              <td className="py-1 pr-3">
                {r.health.ok ? (
                  <span className="text-green-800">up ({r.health.latencyMs} ms)</span>
                ) : (
                  <span className="text-slate-600" title="Hosted APIs often have no /health; only vLLM and SGLang servers answer it.">
                    {r.health.error ?? "unavailable"}
                  </span>
                )}
              </td>
              <td className="max-w-md py-1 break-words text-slate-700">{r.models.length === 0 ? "—" : r.models.slice(0, MODELS_SHOWN).join(", ")}
                {r.models.length > MODELS_SHOWN && <span className="text-slate-500"> and {r.models.length - MODELS_SHOWN} more</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
