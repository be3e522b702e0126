"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { Badge, ButtonLink, DataTable, dataColumns, ErrorAlert, ProgressBar, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

type Queue = RouterOutputs["annotationQueue"]["listQueues"][number];

const column = dataColumns<Queue>();

function DoneCell({ queue: q }: { queue: Queue }) {
  return (
    <>
      <ProgressBar done={q.completedItems} total={q.items} label={`Items of ${q.name} with all their annotators`} />
      <span className="text-xs text-slate-600 tabular-nums">
        {q.completedItems} / {q.items} items
      </span>
    </>
  );
}

function queueColumns({ seesResearch, canAnnotate }: { seesResearch: boolean; canAnnotate: boolean }): DataColumn<Queue>[] {
  return [
    column.accessor("name", {
      header: "Queue",
      cell: ({ row: { original: q } }) => (
        <>
          <Link href={`/annotation-queues/${q.id}`} className="font-medium text-blue-700 hover:underline">
            {q.name}
          </Link>
          {q.blind && <Badge className="ml-2">blind</Badge>}
          {q.archivedAt && <Badge className="ml-2">archived</Badge>}
        </>
      ),
    }),
    ...(seesResearch ? [column.accessor("datasetName", { header: "Dataset", meta: { className: "text-slate-600" } })] : []),
    column.accessor("scheme", { header: "Scheme", cell: (c) => (c.getValue() === "rating" ? "−1 / 0 / +1 per chunk" : "first error") }),
    column.accessor("annotatorsPerItem", { header: "Annotators / item", meta: { align: "right" } }),
    column.display({ id: "done", header: "Done", meta: { className: "min-w-40" }, cell: ({ row }) => <DoneCell queue={row.original} /> }),
    column.accessor("mySubmitted", { header: "By you", meta: { align: "right" } }),
    column.display({
      id: "annotate",
      header: "",
      cell: ({ row: { original: q } }) =>
        canAnnotate &&
        !q.archivedAt && (
          <ButtonLink href={`/annotation-queues/${q.id}/annotate`} variant="accent" size="sm">
            Annotate
          </ButtonLink>
        ),
    }),
  ];
}

export default function QueuesPage() {
  const trpc = useTRPC();
  const canCreate = useCan("annotationQueues.manage");
  const canAnnotate = useCan("annotationQueues.annotate");
  const seesResearch = useCan("research.read");
  const queues = useQuery(trpc.annotationQueue.listQueues.queryOptions({}));
  const columns = useMemo(() => queueColumns({ seesResearch, canAnnotate }), [seesResearch, canAnnotate]);

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Annotation queues</h1>
        {canCreate && (
          <ButtonLink href="/annotation-queues/new" variant="primary" className="ml-auto">
            New queue
          </ButtonLink>
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
        <DataTable data={queues.data} columns={columns} getRowId={(q) => q.id} rowAttributes={(q) => ({ className: q.archivedAt ? "opacity-60" : undefined, "data-testid": "queue-row" })} />
      )}
    </div>
  );
}
