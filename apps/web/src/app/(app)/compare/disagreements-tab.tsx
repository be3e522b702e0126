"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Card, DataTable, dataColumns, ErrorAlert, Field, Input, Pager, pageCountOf, Select, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { CompareParams } from "./compare-params";
import { Hint, runLabel, type Candidates } from "./shared";
import { firstErrorText } from "./format";

const PAGE_SIZE = 50;
const KINDS = [["a_right", "A right, B wrong"], ["b_right", "B right, A wrong"], ["both_wrong", "both wrong"]] as const;
type Kind = (typeof KINDS)[number][0];

type Disagreement = RouterOutputs["compare"]["disagreements"]["items"][number];

const column = dataColumns<Disagreement>();
const rightness = (prediction: number | null, gold: number | null) => (prediction === gold ? "text-green-800" : "text-red-800");

/** What run A or B predicted, green where it matches the gold first error. */
function predictionColumn(side: "a" | "b", header: string): DataColumn<Disagreement> {
  return column.display({
    id: side,
    header,
    cell: ({ row: { original: item } }) => (
      <span className={rightness(item[side], item.gold)} data-testid={`disagreement-${side}`}>
        {firstErrorText(item[side])}
      </span>
    ),
  });
}

function disagreementColumns(itemLink: (solutionId: string) => string): DataColumn<Disagreement>[] {
  return [
    column.accessor("externalId", {
      header: "Solution",
      meta: { className: "font-mono" },
      cell: ({ row: { original: item } }) => (
        <Link href={itemLink(item.solutionId)} className="text-blue-700 hover:underline" data-testid="disagreement-link">
          {item.externalId}
        </Link>
      ),
    }),
    column.accessor("subset", { header: "Subset" }),
    column.accessor("gold", { header: "Gold first error", cell: (c) => firstErrorText(c.getValue()) }),
    predictionColumn("a", "A predicts"),
    predictionColumn("b", "B predicts"),
    column.accessor("kind", { header: "Who was right", cell: (c) => KINDS.find(([k]) => k === c.getValue())![1] }),
    column.display({
      id: "inspector",
      header: "",
      meta: { align: "right" },
      cell: ({ row: { original: item } }) => (
        <Link href={`/solutions/${item.solutionId}`} className="text-xs text-slate-600 hover:underline">
          inspector
        </Link>
      ),
    }),
  ];
}

/** "none" | "error" | a chunk index, from the URL's `gold` key. */
function readGold(value: string | undefined): "none" | "error" | number | undefined {
  if (value === "none" || value === "error") return value;
  const n = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Solutions two runs predict differently, filtered by subset, gold first error and who was right. */
export function DisagreementsTab({ runs, baseline, candidates, params }: { runs: string[]; baseline: string | undefined; candidates: Candidates; params: CompareParams }) {
  const trpc = useTRPC();
  const runA = runs.includes(params.get("a") ?? "") ? params.get("a")! : runs.find((r) => r !== baseline);
  const runB = runs.includes(params.get("b") ?? "") && params.get("b") !== runA ? params.get("b")! : baseline !== runA ? baseline : runs.find((r) => r !== runA);
  const subset = params.get("subset");
  const gold = readGold(params.get("gold"));
  const kind = KINDS.find(([k]) => k === params.get("kind"))?.[0] as Kind | undefined;
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const [chunkInput, setChunkInput] = useState(typeof gold === "number" ? String(gold) : "");
  useEffect(() => setChunkInput(typeof gold === "number" ? String(gold) : ""), [gold]);

  const ready = runA !== undefined && runB !== undefined;
  const result = useQuery({
    ...trpc.compare.disagreements.queryOptions({ runA: runA ?? "", runB: runB ?? "", subset, goldFirstError: gold, kind, cursor: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE }),
    enabled: ready,
    placeholderData: keepPreviousData,
  });
  if (!ready) return <Hint>Pick at least two runs above.</Hint>;
  const set = (changes: Record<string, string | undefined>) => params.update({ ...changes, page: undefined });
  const data = result.data;
  const runOption = (id: string) => [id, runLabel(candidates, id)] as const;
  const itemLink = (solutionId: string) => `/compare/item?solution=${encodeURIComponent(solutionId)}&runs=${encodeURIComponent(`${runA},${runB}`)}&dataset=${encodeURIComponent(params.dataset ?? "")}`;

  return (
    <div className="space-y-3">
      <Card role="search" aria-label="Filter disagreements" padding="sm" className="grid grid-cols-2 gap-3 text-sm lg:grid-cols-6">
        <Field label="Run A" className="col-span-2 lg:col-span-2">
          <Select value={runA} data-testid="disagreements-run-a" onChange={(e) => set({ a: e.target.value, b: e.target.value === runB ? undefined : runB })} options={runs.map(runOption)} />
        </Field>
        <Field label="Run B" className="col-span-2 lg:col-span-2">
          <Select value={runB} data-testid="disagreements-run-b" onChange={(e) => set({ b: e.target.value })} options={runs.filter((id) => id !== runA).map(runOption)} />
        </Field>
        <Field label="Subset">
          <Select value={subset ?? ""} data-testid="disagreements-subset" onChange={(e) => set({ subset: e.target.value || undefined })} placeholder="All" options={(data?.subsets ?? []).map((s) => [s, s] as const)} />
        </Field>
        <Field label="Who was right">
          <Select value={kind ?? ""} data-testid="disagreements-kind" onChange={(e) => set({ kind: e.target.value || undefined })} placeholder="Any" options={KINDS} />
        </Field>
        <Field label="Gold first error">
          <Select
            value={typeof gold === "number" ? "chunk" : (gold ?? "")}
            data-testid="disagreements-gold"
            onChange={(e) => set({ gold: e.target.value === "chunk" ? chunkInput || "0" : e.target.value || undefined })}
            placeholder="Any"
            options={[
              ["none", "No error (−1)"],
              ["error", "Has an error"],
              ["chunk", "At chunk…"],
            ]}
          />
        </Field>
        {typeof gold === "number" && (
          <Field label="Chunk index">
            <Input
              type="number"
              min={0}
              value={chunkInput}
              data-testid="disagreements-gold-chunk"
              onChange={(e) => setChunkInput(e.target.value)}
              onBlur={() => set({ gold: readGold(chunkInput) === undefined ? undefined : chunkInput })}
              onKeyDown={(e) => e.key === "Enter" && set({ gold: readGold(chunkInput) === undefined ? undefined : chunkInput })}
            />
          </Field>
        )}
      </Card>

      {result.error && <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>}
      {!data && !result.error && <Hint>Loading disagreements…</Hint>}
      {data && (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm" aria-live="polite">
            <span data-testid="disagreements-total">
              {data.total.toLocaleString()} of {data.gold.toLocaleString()} solutions{result.isFetching ? " · updating…" : ""}
            </span>
            {KINDS.map(([k, text]) => (
              <span key={k} className="rounded bg-slate-100 px-2 py-0.5 text-xs text-slate-700" data-testid={`disagreements-count-${k}`} data-count={data.counts[k]}>
                {text}: {data.counts[k].toLocaleString()}
              </span>
            ))}
            <Pager page={page} pageCount={pageCountOf(data.total, PAGE_SIZE)} hasNext={data.nextCursor !== null} onPage={(to) => params.update({ page: String(to) })} testId="disagreements" />
          </div>
          <DataTable
            testId="disagreements-table"
            data={data.items}
            columns={disagreementColumns(itemLink)}
            getRowId={(item) => item.solutionId}
            rowAttributes={(item) => ({ "data-testid": "disagreement-row", "data-external-id": item.externalId, "data-kind": item.kind })}
            empty="No solution matches."
          />
        </>
      )}
    </div>
  );
}
