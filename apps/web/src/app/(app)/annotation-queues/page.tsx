"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ErrorAlert, ProgressBar } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

export default function QueuesPage() {
  const trpc = useTRPC();
  const canCreate = useCan("annotationQueues.manage");
  const canAnnotate = useCan("annotationQueues.annotate");
  const seesResearch = useCan("research.read");
  const queues = useQuery(trpc.annotationQueue.listQueues.queryOptions({}));

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Annotation queues</h1>
        {canCreate && (
          <Link href="/annotation-queues/new" className="ml-auto rounded bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700">
            New queue
          </Link>
        )}
      </div>
      {queues.error && <ErrorAlert>{errorMessage(queues.error)}</ErrorAlert>}
      {queues.data?.length === 0 && (
        <p className="text-sm text-slate-600">
          {seesResearch ? "No queues yet." : "No queues for you yet: a researcher adds you to the queues you are to work."}
          {canCreate ? " Filter a dataset's solutions and audit that list, or start a new queue from a run." : ""}
        </p>
      )}
      {queues.data && queues.data.length > 0 && (
        <div className="overflow-x-auto rounded-lg bg-white shadow-sm">
          <table className="w-full border-collapse text-sm">
            <thead className="bg-slate-100 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Queue</th>
                {seesResearch && <th className="px-3 py-2">Dataset</th>}
                <th className="px-3 py-2">Scheme</th>
                <th className="px-3 py-2 text-right">Annotators / item</th>
                <th className="px-3 py-2">Done</th>
                <th className="px-3 py-2 text-right">By you</th>
                <th className="px-3 py-2" />
              </tr>
            </thead>
            <tbody>
              {queues.data.map((q) => (
                <tr key={q.id} data-testid="queue-row" className={`border-t border-slate-100 ${q.archivedAt ? "opacity-60" : ""}`}>
                  <td className="px-3 py-2">
                    <Link href={`/annotation-queues/${q.id}`} className="font-medium text-blue-700 hover:underline">
                      {q.name}
                    </Link>
                    {q.blind && <span className="ml-2 rounded bg-slate-100 px-1.5 text-xs text-slate-600">blind</span>}
                    {q.archivedAt && <span className="ml-2 rounded bg-slate-100 px-1.5 text-xs text-slate-600">archived</span>}
                  </td>
                  {seesResearch && <td className="px-3 py-2 text-slate-600">{q.datasetName}</td>}
                  <td className="px-3 py-2">{q.scheme === "rating" ? "−1 / 0 / +1 per chunk" : "first error"}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{q.annotatorsPerItem}</td>
                  <td className="min-w-40 px-3 py-2">
                    <ProgressBar done={q.completedItems} total={q.items} label={`Items of ${q.name} with all their annotators`} />
                    <span className="text-xs text-slate-600 tabular-nums">
                      {q.completedItems} / {q.items} items
                    </span>
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums">{q.mySubmitted}</td>
                  <td className="px-3 py-2">
                    {canAnnotate && !q.archivedAt && (
                      <Link href={`/annotation-queues/${q.id}/annotate`} className="rounded border border-blue-300 px-2 py-1 text-blue-800 hover:bg-blue-50">
                        Annotate
                      </Link>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
