"use client";

import { describeStoredLabelRule } from "@stepwiser/core";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ErrorAlert, ProgressBar } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { AgreementPanel } from "./agreement-panel";
import { MembersPanel } from "./members-panel";
import { QueueSettings } from "./queue-settings";

/** A queue's dashboard: progress per annotator, agreement, the items to adjudicate. */
export default function QueuePage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const canAnnotate = useCan("annotationQueues.annotate");
  const isResearcher = useCan("annotationQueues.manage");
  const seesResearch = useCan("research.read");
  const queue = useQuery({ ...trpc.annotationQueue.queue.queryOptions({ queueId: id }), refetchInterval: 5000 });

  if (queue.error) return <ErrorAlert>{errorMessage(queue.error)}</ErrorAlert>;
  const q = queue.data;
  if (!q) return <p className="text-sm text-slate-500">Loading…</p>;
  const p = q.progress;
  return (
    <div className="space-y-5">
      <div>
        <Link href="/annotation-queues" className="text-sm text-blue-700 hover:underline">
          ← Annotation queues
        </Link>
        <div className="mt-1 flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold">{q.name}</h1>
          {q.blind && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">blind</span>}
          {q.archivedAt && <span className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">archived</span>}
          <span className="ml-auto flex flex-wrap gap-2">
            {seesResearch && (
              <Link href={threeWayHref(q)} className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50">
                Judge × Monte-Carlo × these labels
              </Link>
            )}
            {isResearcher && (
              <a href={`/api/annotation-queues/${id}/labels`} download className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-50">
                Export labels (JSONL)
              </a>
            )}
            {canAnnotate && !q.archivedAt && (
              <Link href={`/annotation-queues/${id}/annotate`} className="rounded bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700">
                Annotate
              </Link>
            )}
          </span>
        </div>
        <p className="text-sm text-slate-600">
          {q.scheme === "rating" ? "−1 / 0 / +1 per chunk" : "first error per solution"} · {q.annotatorsPerItem} annotator{q.annotatorsPerItem === 1 ? "" : "s"} per item · lease {Math.round(q.leaseSeconds / 60)} min
          {q.segmentationMethod && ` · chunks of ${q.segmentationMethod}`}
          {q.labelRule && ` · audits ${describeStoredLabelRule(q.labelRule.rule, q.labelRule.paramsKey)} labels`}
        </p>
      </div>

      <section aria-labelledby="progress-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <h2 id="progress-heading" className="text-sm font-semibold text-slate-700">
          Progress
        </h2>
        <ProgressBar done={p.completedItems} total={p.items} label="Items with all their annotators" />
        <p className="text-sm text-slate-700" data-testid="queue-progress">
          <span className="tabular-nums">{p.completedItems}</span> of <span className="tabular-nums">{p.items}</span> items done · {p.submissions} submissions · {p.activeLeases} held now · {p.adjudicatedItems} adjudicated
        </p>
        {p.annotators.length > 0 && (
          <table className="w-full text-sm">
            <thead className="text-left text-slate-600">
              <tr>
                <th className="py-1 pr-3">Annotator</th>
                <th className="py-1 pr-3 text-right">Submitted</th>
                <th className="py-1 pr-3 text-right">Skipped</th>
                <th className="py-1 pr-3 text-right">Holding</th>
              </tr>
            </thead>
            <tbody>
              {p.annotators.map((a) => (
                <tr key={a.userId} data-testid="annotator-progress" className="border-t border-slate-100">
                  <td className="py-1 pr-3">{a.name} <span className="text-slate-500">{a.email}</span></td>
                  <td className="py-1 pr-3 text-right tabular-nums">{a.submitted}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{a.skipped}</td>
                  <td className="py-1 pr-3 text-right tabular-nums">{a.leased}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {seesResearch && <AgreementPanel queueId={id} canAdjudicate={isResearcher} />}
      {isResearcher && <MembersPanel queueId={id} members={q.members} />}

      {q.instructions && (
        <section className="rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
          <h2 className="mb-2 text-sm font-semibold text-slate-700">Instructions</h2>
          <RichText text={q.instructions} />
        </section>
      )}
      {isResearcher && <QueueSettings queue={q} />}
    </div>
  );
}

/** The comparison page's three-way view, reading this queue's human labels against the runs it audits. */
function threeWayHref(queue: { id: string; datasetId: string; judgeRunId: string | null; annotateRunId: string | null }): string {
  const params = new URLSearchParams({ dataset: queue.datasetId, tab: "three-way", queue: queue.id });
  if (queue.judgeRunId) params.set("judge", queue.judgeRunId);
  if (queue.annotateRunId) params.set("annotate", queue.annotateRunId);
  return `/compare?${params.toString()}`;
}
