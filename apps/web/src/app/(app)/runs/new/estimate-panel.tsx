"use client";

import { Field, Input } from "~/components/ui";
import { estimateRows, type PlanEstimate } from "./form-shaping";

/**
 * What the run would need, before it is launched (`run.plan`): counts, tokens, time at a
 * typed throughput or the endpoint's measured one, storage and cost, with the
 * assumptions the estimate rests on.
 */
export function EstimatePanel({ plan, loading, error, waiting, tokensPerSecond, onTokensPerSecond }: {
  plan: PlanEstimate | undefined;
  loading: boolean;
  error: string | null;
  /** Why there is nothing to estimate yet (the form has problems), or null. */
  waiting: string | null;
  tokensPerSecond: string;
  onTokensPerSecond: (value: string) => void;
}) {
  return (
    <section aria-label="Plan estimate" data-testid="plan-estimate" className="space-y-2 rounded border border-slate-200 bg-slate-50 p-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 className="text-sm font-semibold text-slate-800">Plan estimate</h2>
        <Field label="Generated tokens per second" hint="Empty: the endpoint's rate measured over its latest finished runs, where it has some." className="max-w-xs">
          <Input type="number" min={0} step="any" value={tokensPerSecond} placeholder="e.g. 2000" onChange={(e) => onTokensPerSecond(e.target.value)} />
        </Field>
      </div>
      {waiting ? (
        <p className="text-xs text-slate-500">{waiting}</p>
      ) : error ? (
        <p className="text-xs text-red-700">{error}</p>
      ) : !plan ? (
        <p className="text-xs text-slate-500">{loading ? "Estimating…" : "—"}</p>
      ) : !plan.available ? (
        <p className="text-xs text-slate-600" data-testid="plan-unavailable">
          {plan.reason}
        </p>
      ) : (
        <>
          <dl className="grid grid-cols-2 gap-x-4 gap-y-1 sm:grid-cols-3 lg:grid-cols-5">
            {estimateRows(plan).map((row) => (
              <div key={row.key} className="min-w-0">
                <dt className="text-xs text-slate-500">{row.label}</dt>
                <dd className="font-mono text-sm text-slate-900" data-testid={`plan-${row.key}`}>
                  {row.value}
                </dd>
              </div>
            ))}
          </dl>
          <details className="text-xs text-slate-600" open={plan.model === "judge-simple"}>
            <summary className="cursor-pointer">{plan.model === "annotate-planner" ? "Assumptions (the planner of stepwiser plan annotate)" : "Assumptions (a simpler estimate than annotate's)"}</summary>
            <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="plan-assumptions">
              {plan.assumptions.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </details>
        </>
      )}
    </section>
  );
}
