"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Card, DataTable, dataColumns, ErrorAlert, Pager, pageCountOf, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { CompareParams } from "./compare-params";
import { Hint, type Candidates } from "./shared";
import { ReadingPickers, useReadingChoice } from "./reading-pickers";

type ThreeWay = RouterOutputs["compare"]["threeWay"];
type Agreement = ThreeWay["judgeVsMc"];

const PAGE_SIZE = 100;
const PATTERNS = [
  ["all_differ", "all differ"],
  ["human_alone", "human alone"],
  ["judge_alone", "judge alone"],
  ["mc_alone", "MC alone"],
] as const;
type Pattern = (typeof PATTERNS)[number][0];

const LABEL_TONE: Record<string, string> = { Positive: "text-green-800", Negative: "text-red-800", unparseable: "text-slate-500" };

function humanText(rating: -1 | 0 | 1 | null): string {
  return rating === null ? "—" : rating === 1 ? "+1 right" : rating === 0 ? "0 neutral" : "−1 wrong";
}

type SplitChunk = ThreeWay["list"]["items"][number];

const column = dataColumns<SplitChunk>();
const toned = (label: string | null) => <span className={LABEL_TONE[label ?? ""]}>{label}</span>;
const CHUNK_COLUMNS: DataColumn<SplitChunk>[] = [
  column.display({
    id: "chunk",
    header: "Chunk",
    meta: { className: "font-mono" },
    cell: ({ row: { original: c } }) => (
      <Link href={`/solutions/${c.solutionId}#chunk-${c.index}`} className="text-blue-700 hover:underline" data-testid="three-way-link">
        {c.externalId} #{c.index}
      </Link>
    ),
  }),
  column.accessor("judge", { header: "Judge", cell: (c) => toned(c.getValue()) }),
  column.accessor("judgeShare", { header: "Positive share", cell: (c) => (c.getValue() === null ? "—" : c.getValue()!.toFixed(2)), meta: { align: "right" } }),
  column.accessor("mc", { header: "Monte-Carlo", cell: (c) => toned(c.getValue()) }),
  column.accessor("human", { header: "Human", cell: (c) => humanText(c.getValue()) }),
  column.accessor("pattern", { header: "Pattern", cell: (c) => PATTERNS.find(([p]) => p === c.getValue())![1] }),
];

/** A 2 × 2 (or 2 × 3 with unparseable judge votes) table: rows the reference, columns the other reading. */
function Matrix({ title, testId, agreement, referenceName, readingName, withUnparseable }: { title: string; testId: string; agreement: Agreement; referenceName: string; readingName: string; withUnparseable: boolean }) {
  const columns = withUnparseable ? (["Positive", "Negative", "unparseable"] as const) : (["Positive", "Negative"] as const);
  return (
    <Card as="section" aria-label={title} data-testid={testId} padding="sm" className="text-sm">
      <h3 className="font-semibold">{title}</h3>
      <p className="mb-2 text-xs text-slate-500">
        Cohen&apos;s κ{" "}
        <span className="font-semibold text-slate-900 tabular-nums" data-testid={`kappa-${testId.replace(/^matrix-/, "")}`} data-value={agreement.kappa ?? ""}>
          {agreement.kappa === null ? "—" : agreement.kappa.toFixed(3)}
        </span>{" "}
        · agreement {agreement.observedAgreement === null ? "—" : `${(agreement.observedAgreement * 100).toFixed(1)} %`} · {agreement.matrix.total.toLocaleString()} chunks
      </p>
      <table className="text-sm">
        <thead>
          <tr className="text-xs text-slate-600">
            <th className="px-2 py-1 text-left">
              {referenceName} ↓ / {readingName} →
            </th>
            {columns.map((c) => (
              <th key={c} className={`px-2 py-1 text-right ${LABEL_TONE[c]}`}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {(["Positive", "Negative"] as const).map((reference) => (
            <tr key={reference} className="border-t border-slate-100">
              <th className={`px-2 py-1 text-left text-xs ${LABEL_TONE[reference]}`}>{reference}</th>
              {columns.map((reading) => (
                <td key={reading} className={`px-2 py-1 text-right tabular-nums ${reading === reference ? "font-semibold" : ""}`} data-testid="matrix-cell" data-reference={reference} data-reading={reading}>
                  {agreement.matrix.counts[reference][reading].toLocaleString()}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}

/** Judge × Monte-Carlo × human on the dataset's chunks: three matrices with κ, and the chunks they split on. */
export function ThreeWayTab({ runs, candidates, params }: { runs: string[]; candidates: Candidates; params: CompareParams }) {
  const trpc = useTRPC();
  const choice = useReadingChoice(candidates, runs, params);
  const pattern = PATTERNS.find(([p]) => p === params.get("pattern"))?.[0] as Pattern | undefined;
  const page = Math.max(1, Number.parseInt(params.get("pcursor") ?? "1", 10) || 1);
  const ready = choice.judge !== undefined && choice.annotate !== undefined;
  const result = useQuery({
    ...trpc.compare.threeWay.queryOptions({ judgeRunId: choice.judge ?? "", annotateRunId: choice.annotate ?? "", rule: choice.rule, queueId: choice.queue, pattern, cursor: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE }),
    enabled: ready,
    placeholderData: keepPreviousData,
  });
  const data = result.data;
  return (
    <div className="space-y-3">
      <ReadingPickers candidates={candidates} choice={choice} params={params} />
      {!ready && <Hint>{choice.judge === undefined ? "No run on this dataset stored per-chunk judge samples." : "No annotate run with stored labels on this dataset."}</Hint>}
      {result.error && <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>}
      {ready && !data && !result.error && <Hint>Loading…</Hint>}
      {data && (
        <>
          <p className="text-xs text-slate-500" data-testid="three-way-summary">
            {data.chunks.toLocaleString()} chunks with a reading · {data.humanRated.toLocaleString()} with a final human rating ({data.disputed.toLocaleString()} disputed, left out) · {data.complete.toLocaleString()} with all three, {data.unanimous.toLocaleString()} unanimous. Human ratings are binarised: 0 (neutral) counts as Positive.
          </p>
          <div className="grid grid-cols-1 gap-3 lg:grid-cols-3">
            <Matrix title="Judge × Monte-Carlo" testId="matrix-judge-mc" agreement={data.judgeVsMc} referenceName="MC" readingName="judge" withUnparseable />
            <Matrix title="Judge × human" testId="matrix-judge-human" agreement={data.judgeVsHuman} referenceName="human" readingName="judge" withUnparseable />
            <Matrix title="Monte-Carlo × human" testId="matrix-mc-human" agreement={data.mcVsHuman} referenceName="human" readingName="MC" withUnparseable={false} />
          </div>
          <div className="flex flex-wrap items-center gap-2 text-sm" role="group" aria-label="Filter by pattern">
            <span className="text-slate-600">Not unanimous:</span>
            <button type="button" onClick={() => params.update({ pattern: undefined, pcursor: undefined })} className={`rounded px-2 py-0.5 text-xs ${pattern === undefined ? "bg-slate-800 text-white" : "bg-slate-100 text-slate-700"}`} data-testid="three-way-pattern-all">
              all ({Object.values(data.patterns).reduce((a, b) => a + b, 0).toLocaleString()})
            </button>
            {PATTERNS.map(([p, text]) => (
              <button
                key={p}
                type="button"
                onClick={() => params.update({ pattern: p, pcursor: undefined })}
                className={`rounded px-2 py-0.5 text-xs ${pattern === p ? "bg-slate-800 text-white" : "bg-slate-100 text-slate-700"}`}
                data-testid={`three-way-pattern-${p}`}
                data-count={data.patterns[p]}
              >
                {text} ({data.patterns[p].toLocaleString()})
              </button>
            ))}
            <Pager page={page} pageCount={pageCountOf(data.list.total, PAGE_SIZE)} hasNext={data.list.nextCursor !== null} onPage={(to) => params.update({ pcursor: String(to) })} />
          </div>
          <DataTable
            testId="three-way-table"
            data={data.list.items}
            columns={CHUNK_COLUMNS}
            getRowId={(c) => c.chunkId}
            rowAttributes={(c) => ({ "data-testid": "three-way-row", "data-pattern": c.pattern, "data-chunk-id": c.chunkId })}
            empty="No chunk with all three readings splits this way."
          />
        </>
      )}
    </div>
  );
}
