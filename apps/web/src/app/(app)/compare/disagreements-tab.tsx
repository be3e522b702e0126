"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { CompareParams } from "./compare-params";
import { Hint, runLabel, type Candidates } from "./shared";
import { firstErrorText } from "./format";

const PAGE_SIZE = 50;
const KINDS = [
  ["a_right", "A right, B wrong"],
  ["b_right", "B right, A wrong"],
  ["both_wrong", "both wrong"],
] as const;
type Kind = (typeof KINDS)[number][0];

const field = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1";

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
  const itemLink = (trajectoryId: string) => `/compare/item?trajectory=${encodeURIComponent(trajectoryId)}&runs=${encodeURIComponent(`${runA},${runB}`)}&dataset=${encodeURIComponent(params.dataset ?? "")}`;

  return (
    <div className="space-y-3">
      <div role="search" aria-label="Filter disagreements" className="grid grid-cols-2 gap-3 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm lg:grid-cols-6">
        <label className="col-span-2 min-w-0 lg:col-span-2">
          <span className="block text-slate-600">Run A</span>
          <select className={field} value={runA} data-testid="disagreements-run-a" onChange={(e) => set({ a: e.target.value, b: e.target.value === runB ? undefined : runB })}>
            {runs.map((id) => (
              <option key={id} value={id}>
                {runLabel(candidates, id)}
              </option>
            ))}
          </select>
        </label>
        <label className="col-span-2 min-w-0 lg:col-span-2">
          <span className="block text-slate-600">Run B</span>
          <select className={field} value={runB} data-testid="disagreements-run-b" onChange={(e) => set({ b: e.target.value })}>
            {runs
              .filter((id) => id !== runA)
              .map((id) => (
                <option key={id} value={id}>
                  {runLabel(candidates, id)}
                </option>
              ))}
          </select>
        </label>
        <label className="min-w-0">
          <span className="block text-slate-600">Subset</span>
          <select className={field} value={subset ?? ""} data-testid="disagreements-subset" onChange={(e) => set({ subset: e.target.value || undefined })}>
            <option value="">All</option>
            {(data?.subsets ?? []).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="min-w-0">
          <span className="block text-slate-600">Who was right</span>
          <select className={field} value={kind ?? ""} data-testid="disagreements-kind" onChange={(e) => set({ kind: e.target.value || undefined })}>
            <option value="">Any</option>
            {KINDS.map(([k, text]) => (
              <option key={k} value={k}>
                {text}
              </option>
            ))}
          </select>
        </label>
        <label className="min-w-0">
          <span className="block text-slate-600">Gold first error</span>
          <select
            className={field}
            value={typeof gold === "number" ? "chunk" : (gold ?? "")}
            data-testid="disagreements-gold"
            onChange={(e) => set({ gold: e.target.value === "chunk" ? chunkInput || "0" : e.target.value || undefined })}
          >
            <option value="">Any</option>
            <option value="none">No error (−1)</option>
            <option value="error">Has an error</option>
            <option value="chunk">At chunk…</option>
          </select>
        </label>
        {typeof gold === "number" && (
          <label className="min-w-0">
            <span className="block text-slate-600">Chunk index</span>
            <input
              type="number"
              min={0}
              className={field}
              value={chunkInput}
              data-testid="disagreements-gold-chunk"
              onChange={(e) => setChunkInput(e.target.value)}
              onBlur={() => set({ gold: readGold(chunkInput) === undefined ? undefined : chunkInput })}
              onKeyDown={(e) => e.key === "Enter" && set({ gold: readGold(chunkInput) === undefined ? undefined : chunkInput })}
            />
          </label>
        )}
      </div>

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
            <nav aria-label="Pages" className="ml-auto flex items-center gap-3">
              <button type="button" disabled={page <= 1} onClick={() => params.update({ page: String(page - 1) })} className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40" data-testid="disagreements-previous">
                Previous
              </button>
              <span className="text-slate-600">
                page {page} of {Math.max(1, Math.ceil(data.total / PAGE_SIZE))}
              </span>
              <button type="button" disabled={data.nextCursor === null} onClick={() => params.update({ page: String(page + 1) })} className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40" data-testid="disagreements-next">
                Next
              </button>
            </nav>
          </div>
          <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
            <table className="w-full text-sm" data-testid="disagreements-table">
              <thead className="bg-slate-50 text-left text-xs text-slate-600">
                <tr>
                  <th className="px-3 py-2">Solution</th>
                  <th className="px-3 py-2">Subset</th>
                  <th className="px-3 py-2">Gold first error</th>
                  <th className="px-3 py-2">A predicts</th>
                  <th className="px-3 py-2">B predicts</th>
                  <th className="px-3 py-2">Who was right</th>
                  <th className="px-3 py-2" />
                </tr>
              </thead>
              <tbody>
                {data.items.map((item) => (
                  <tr key={item.trajectoryId} className="border-t border-slate-100" data-testid="disagreement-row" data-external-id={item.externalId} data-kind={item.kind}>
                    <td className="px-3 py-2 font-mono">
                      <Link href={itemLink(item.trajectoryId)} className="text-blue-700 hover:underline" data-testid="disagreement-link">
                        {item.externalId}
                      </Link>
                    </td>
                    <td className="px-3 py-2">{item.subset}</td>
                    <td className="px-3 py-2">{firstErrorText(item.gold)}</td>
                    <td className={`px-3 py-2 ${item.a === item.gold ? "text-green-800" : "text-red-800"}`} data-testid="disagreement-a">
                      {firstErrorText(item.a)}
                    </td>
                    <td className={`px-3 py-2 ${item.b === item.gold ? "text-green-800" : "text-red-800"}`} data-testid="disagreement-b">
                      {firstErrorText(item.b)}
                    </td>
                    <td className="px-3 py-2">{KINDS.find(([k]) => k === item.kind)![1]}</td>
                    <td className="px-3 py-2 text-right">
                      <Link href={`/trajectories/${item.trajectoryId}`} className="text-xs text-slate-600 hover:underline">
                        inspector
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.items.length === 0 && <p className="p-3 text-sm text-slate-500">No solution matches.</p>}
          </div>
        </>
      )}
    </div>
  );
}
