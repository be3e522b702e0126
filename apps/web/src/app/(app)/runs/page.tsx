"use client";

import { Suspense } from "react";
import { ButtonLink } from "~/components/ui";
import { useCan } from "~/lib/session-context";
import { RunsList } from "./runs-list";

/** Every run across datasets, filtered, sorted and paged on the server; the view lives in the URL. */
export default function RunsPage() {
  const canLaunch = useCan("research.manage");
  return (
    <div className="space-y-4">
      <div className="flex items-center gap-3">
        <h1 className="text-xl font-semibold">Runs</h1>
        {canLaunch && (
          <ButtonLink href="/runs/new" variant="primary" className="ml-auto">
            Launch a run
          </ButtonLink>
        )}
      </div>
      <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
        <RunsList />
      </Suspense>
    </div>
  );
}
