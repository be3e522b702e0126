"use client";

import { RATING_NAMES, type AssignmentView, type Rating } from "./draft";

/**
 * After a submission: the annotator's labels next to the model's, which a
 * blind queue hid until now. Other annotators' labels are never shown here.
 */
export function SubmittedReveal({ assignment }: { assignment: AssignmentView }) {
  const mine = new Map((assignment.mine?.labels ?? []).map((label) => [label.chunkId, label]));
  return (
    <details data-testid="submitted-reveal" className="rounded border border-green-200 bg-green-50 p-3 text-sm">
      <summary className="cursor-pointer text-green-900">
        Submitted {assignment.trajectory.externalId}
        {assignment.queue.scheme === "first_error" && assignment.mine?.firstErrorIndex != null && ` (first error: ${assignment.mine.firstErrorIndex === -1 ? "none" : `chunk ${assignment.mine.firstErrorIndex}`})`}
        . Compare with the model&apos;s labels.
      </summary>
      <table className="mt-2 w-full text-xs">
        <thead className="text-left text-slate-600">
          <tr>
            <th className="py-1 pr-3">chunk</th>
            <th className="py-1 pr-3">you</th>
            <th className="py-1 pr-3">Monte-Carlo</th>
            <th className="py-1 pr-3">judge</th>
          </tr>
        </thead>
        <tbody>
          {assignment.chunks.map((chunk) => {
            const rating = mine.get(chunk.id)?.rating as Rating | null | undefined;
            return (
              <tr key={chunk.id} className="border-t border-green-100">
                <td className="py-1 pr-3 font-mono">#{chunk.index}</td>
                <td className="py-1 pr-3">{rating == null ? "—" : `${rating > 0 ? "+1" : rating} ${RATING_NAMES[rating]}`}</td>
                <td className="py-1 pr-3">{chunk.mcLabel ?? "—"}</td>
                <td className="py-1 pr-3">{chunk.judgeVerdict ?? "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}
