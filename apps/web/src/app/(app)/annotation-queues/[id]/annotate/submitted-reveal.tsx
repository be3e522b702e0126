"use client";

import { DataTable, dataColumns, type DataColumn } from "~/components/ui";
import { RATING_NAMES, type AssignmentView, type Rating } from "./draft";

type Chunk = AssignmentView["chunks"][number];

const column = dataColumns<Chunk>();

function revealColumns(mine: Map<string, { rating: number | null }>): DataColumn<Chunk>[] {
  return [
    column.accessor("index", { header: "chunk", cell: (c) => `#${c.getValue()}`, meta: { className: "font-mono" } }),
    column.display({
      id: "you",
      header: "you",
      cell: ({ row }) => {
        const rating = mine.get(row.original.id)?.rating as Rating | null | undefined;
        return rating == null ? "—" : `${rating > 0 ? "+1" : rating} ${RATING_NAMES[rating]}`;
      },
    }),
    column.accessor("mcLabel", { header: "Monte-Carlo", cell: (c) => c.getValue() ?? "—" }),
    column.accessor("qValue", { header: "Q", cell: (c) => c.getValue()?.toFixed(2) ?? "—", meta: { className: "font-mono" } }),
    column.accessor("judgeVerdict", { header: "judge", cell: (c) => c.getValue() ?? "—" }),
  ];
}

/**
 * After a submission: the annotator's labels next to the model's, which a
 * blind queue hid until now. Other annotators' labels are never shown here.
 */
export function SubmittedReveal({ assignment }: { assignment: AssignmentView }) {
  const mine = new Map((assignment.mine?.labels ?? []).map((label) => [label.chunkId, label]));
  return (
    <details data-testid="submitted-reveal" className="rounded border border-green-200 bg-green-50 p-3 text-sm">
      <summary className="cursor-pointer text-green-900">
        Submitted {assignment.solution.externalId}
        {assignment.queue.scheme === "first_error" && assignment.mine?.firstErrorIndex != null && ` (first error: ${assignment.mine.firstErrorIndex === -1 ? "none" : `chunk ${assignment.mine.firstErrorIndex}`})`}
        . Compare with the model&apos;s labels.
      </summary>
      <div className="mt-2">
        <DataTable look="compact" data={assignment.chunks} columns={revealColumns(mine)} getRowId={(chunk) => chunk.id} />
      </div>
    </details>
  );
}
