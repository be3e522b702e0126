"use client";

import type { RouterOutputs } from "@stepwiser/api";
import Link from "next/link";
import { Card } from "~/components/ui";

type Failures = RouterOutputs["run"]["failures"];

/** Units that failed or are waiting for a retry, with their error and a link to the solution concerned. */
export function RunFailures({ failures }: { failures: Failures }) {
  if (failures.total === 0) return null;
  return (
    <section aria-labelledby="failures-heading" className="space-y-2">
      <h2 id="failures-heading" className="text-base font-semibold">
        Errors <span className="text-sm font-normal text-slate-500">({failures.total} units{failures.total > failures.units.length ? `, first ${failures.units.length} shown` : ""})</span>
      </h2>
      <Card as="ul" padding="none" border="border-red-200" className="divide-y divide-slate-100 text-sm">
        {failures.units.map((unit) => (
          <li key={unit.key} className="space-y-1 px-3 py-2">
            <div className="flex flex-wrap gap-x-3 text-slate-600">
              <span className={unit.status === "failed" ? "font-medium text-red-700" : "text-amber-700"}>{unit.status === "failed" ? "failed" : "will retry"}</span>
              <span>
                {unit.attempts} attempt{unit.attempts === 1 ? "" : "s"}
              </span>
              {unit.solution ? (
                <Link href={`/solutions/${unit.solution.id}`} className="font-mono text-blue-700 hover:underline">
                  {unit.solution.externalId}
                </Link>
              ) : (
                <span className="font-mono">{unit.key}</span>
              )}
              <span className="ml-auto">{unit.updatedAt.toLocaleString()}</span>
            </div>
            <pre className="overflow-x-auto text-xs whitespace-pre-wrap text-red-800">{unit.error}</pre>
          </li>
        ))}
      </Card>
    </section>
  );
}
