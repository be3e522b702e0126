"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { describeStoredLabelRule } from "@stepwiser/core";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Badge, buttonClass, ButtonLink, Card, CardTitle, DataTable, dataColumns, ErrorAlert, ProgressBar, type DataColumn } from "~/components/ui";
import { RichText } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";
import { AgreementPanel } from "./agreement-panel";
import { MembersPanel } from "./members-panel";
import { QueueSettings } from "./queue-settings";

type Annotator = RouterOutputs["annotationQueue"]["queue"]["progress"]["annotators"][number];

const column = dataColumns<Annotator>();
const ANNOTATOR_COLUMNS: DataColumn<Annotator>[] = [
  column.accessor("name", {
    header: "Annotator",
    cell: ({ row: { original: a } }) => (
      <>
        {a.name} <span className="text-slate-500">{a.email}</span>
      </>
    ),
  }),
  column.accessor("submitted", { header: "Submitted", meta: { align: "right" } }),
  column.accessor("skipped", { header: "Skipped", meta: { align: "right" } }),
  column.accessor("leased", { header: "Holding", meta: { align: "right" } }),
];

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
          {q.blind && <Badge>blind</Badge>}
          {q.archivedAt && <Badge>archived</Badge>}
          <span className="ml-auto flex flex-wrap gap-2">
            {seesResearch && (
              <ButtonLink href={threeWayHref(q)}>Judge × Monte-Carlo × these labels</ButtonLink>
            )}
            {isResearcher && (
              <a href={`/api/annotation-queues/${id}/labels`} download className={buttonClass()}>
                Export labels (JSONL)
              </a>
            )}
            {canAnnotate && !q.archivedAt && (
              <ButtonLink href={`/annotation-queues/${id}/annotate`} variant="primary">
                Annotate
              </ButtonLink>
            )}
          </span>
        </div>
        <p className="text-sm text-slate-600">
          {q.scheme === "rating" ? "−1 / 0 / +1 per chunk" : "first error per solution"} · {q.annotatorsPerItem} annotator{q.annotatorsPerItem === 1 ? "" : "s"} per item · lease {Math.round(q.leaseSeconds / 60)} min
          {q.segmentationMethod && ` · chunks of ${q.segmentationMethod}`}
          {q.labelRule && ` · audits ${describeStoredLabelRule(q.labelRule.rule, q.labelRule.paramsKey)} labels`}
        </p>
        {q.blindOff && (
          <p role="status" data-testid="blind-off-notice" className="mt-2 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            <span className="font-semibold">Not blind: annotators see model labels</span> — turned off{q.blindOff.byName ? ` by ${q.blindOff.byName}` : ""} on {dayOf(q.blindOff.at)}
            {q.blindOff.reason ? `: ${q.blindOff.reason}` : " (no reason was recorded)"}
          </p>
        )}
      </div>

      <Card as="section" aria-labelledby="progress-heading" className="space-y-3">
        <CardTitle id="progress-heading" className="text-slate-700">
          Progress
        </CardTitle>
        <ProgressBar done={p.completedItems} total={p.items} label="Items with all their annotators" />
        <p className="text-sm text-slate-700" data-testid="queue-progress">
          <span className="tabular-nums">{p.completedItems}</span> of <span className="tabular-nums">{p.items}</span> items done · {p.submissions} submissions · {p.activeLeases} held now · {p.adjudicatedItems} adjudicated
        </p>
        {p.annotators.length > 0 && (
          <div className="text-sm">
            <DataTable look="inline" data={p.annotators} columns={ANNOTATOR_COLUMNS} getRowId={(a) => a.userId} rowAttributes={() => ({ "data-testid": "annotator-progress" })} />
          </div>
        )}
      </Card>

      {seesResearch && <AgreementPanel queueId={id} canAdjudicate={isResearcher} />}
      {isResearcher && <MembersPanel queueId={id} members={q.members} />}

      {q.instructions && (
        <Card as="section" className="text-sm">
          <CardTitle className="mb-2 text-slate-700">Instructions</CardTitle>
          <RichText text={q.instructions} />
        </Card>
      )}
      {isResearcher && <QueueSettings queue={q} />}
    </div>
  );
}

/** A day as YYYY-MM-DD (UTC): the same on every screen. */
function dayOf(at: Date | string): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The comparison page's three-way view, reading this queue's human labels against the runs it audits. */
function threeWayHref(queue: { id: string; datasetId: string; judgeRunId: string | null; annotateRunId: string | null }): string {
  const params = new URLSearchParams({ dataset: queue.datasetId, tab: "three-way", queue: queue.id });
  if (queue.judgeRunId) params.set("judge", queue.judgeRunId);
  if (queue.annotateRunId) params.set("annotate", queue.annotateRunId);
  return `/compare?${params.toString()}`;
}
