"use client";

import { useSearchParams } from "next/navigation";
import { useCan } from "~/lib/session-context";
import { LaunchForm } from "./launch-form";

export default function NewRunPage() {
  const params = useSearchParams();
  const canLaunch = useCan("research.manage");
  return (
    <div className="max-w-5xl space-y-4">
      <h1 className="text-xl font-semibold">Launch a run</h1>
      {canLaunch ? (
        <LaunchForm initialKind={params.get("kind") ?? undefined} initialDatasetId={params.get("datasetId") ?? undefined} />
      ) : (
        <p className="text-sm text-slate-600">Launching runs needs the researcher role; ask an admin.</p>
      )}
    </div>
  );
}
