"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Card, CardTitle, ErrorAlert, Select, Truncate } from "~/components/ui";
import { RichText, RichTextModeToggle, type RichTextMode } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useSearchParamsState } from "~/lib/url-state";
import { useTRPC } from "~/trpc/react";
import { RationaleList, VerdictBadge } from "../../solutions/[id]/inspector/judge-cell";
import { firstErrorText } from "../format";
import { numberOptions } from "../shared";
import { RationaleDiff } from "./rationale-diff";

type Item = RouterOutputs["compare"]["item"];
type Judgement = Item["chunks"][number]["judgements"][number];

function Vote({ judgement }: { judgement: Judgement }) {
  if (!judgement.vote) return <span className="text-xs text-slate-400">not judged</span>;
  const v = judgement.vote;
  return <VerdictBadge verdict={v.verdict} detail={`${v.positive}+ / ${v.negative}−${v.unparseable ? ` / ${v.unparseable}?` : ""}`} />;
}

/**
 * One solution as several runs judged it: per chunk, each run's vote and
 * rationales side by side, and a word-level diff of two runs' rationales.
 * The URL holds the solution, the runs and the diff's choices.
 */
export function ComparisonItem() {
  const trpc = useTRPC();
  const { params, update } = useSearchParamsState();
  const solutionId = params.get("solution") ?? "";
  const runIds = (params.get("runs") ?? "").split(",").map((r) => r.trim()).filter(Boolean);
  const [textMode, setTextMode] = useState<RichTextMode>("rendered");
  const view = useQuery({ ...trpc.compare.item.queryOptions({ solutionId, runIds }), enabled: Boolean(solutionId) && runIds.length > 0 });

  const setParam = (key: string, value: string) => update({ [key]: value });

  if (!solutionId || runIds.length === 0) return <ErrorAlert>This view needs ?solution=…&amp;runs=a,b in its address.</ErrorAlert>;
  if (view.error) return <ErrorAlert>{errorMessage(view.error)}</ErrorAlert>;
  if (!view.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const { solution, runs, chunks } = view.data;
  const diffA = runIds.includes(params.get("diffA") ?? "") ? params.get("diffA")! : runIds[0]!;
  const diffB = runIds.includes(params.get("diffB") ?? "") && params.get("diffB") !== diffA ? params.get("diffB")! : runIds.find((r) => r !== diffA);
  const sample = Math.max(0, Number.parseInt(params.get("sample") ?? "0", 10) || 0);
  const maxSamples = Math.max(1, ...runs.map((r) => r.run.samples));
  const labelOf = (id: string) => runs.find((r) => r.run.id === id)?.run.label ?? id;
  const runOption = (id: string) => [id, labelOf(id)] as const;
  const back = new URLSearchParams({ ...(params.get("dataset") ? { dataset: params.get("dataset")! } : {}), runs: runIds.join(","), tab: "disagreements" });

  return (
    <div className="space-y-4">
      <nav className="flex flex-wrap items-center gap-3 text-sm">
        <Link href={`/compare?${back.toString()}`} className="text-blue-700 hover:underline" data-testid="item-back">
          ← Compare
        </Link>
        <Link href={`/solutions/${solution.id}`} className="text-blue-700 hover:underline">
          Open in the inspector
        </Link>
        <RichTextModeToggle mode={textMode} onModeChange={setTextMode} className="ml-auto" />
      </nav>
      <header className="space-y-1">
        <h1 className="text-xl font-semibold">
          <span className="font-mono">{solution.externalId}</span> <span className="text-base font-normal text-slate-500">{solution.subset}</span>
        </h1>
        <p className="text-sm" data-testid="item-gold" data-gold={solution.gold ?? ""}>
          Gold first error: <span className="font-medium">{solution.gold === null ? "unknown" : firstErrorText(solution.gold)}</span>
        </p>
        <ul className="flex flex-wrap gap-2 text-sm">
          {runs.map((r) => {
            const right = r.predicted && r.prediction === solution.gold;
            return (
              <li key={r.run.id} className={`rounded border px-2 py-1 ${right ? "border-green-200 bg-green-50" : "border-red-200 bg-red-50"}`} data-testid="item-prediction" data-run={r.run.id} data-prediction={r.prediction ?? ""} data-correct={right}>
                <span className="text-slate-600">{r.run.label}:</span> <span className="font-medium">{r.predicted ? firstErrorText(r.prediction) : "no prediction"}</span> {right ? "✓" : "✗"}
              </li>
            );
          })}
        </ul>
      </header>
      <Card as="section" aria-label="Problem" padding="sm">
        <CardTitle className="mb-1 text-slate-600">Problem</CardTitle>
        <RichText text={solution.problem} mode={textMode} className="text-sm" />
      </Card>

      {runs.some((r) => r.criticOutput) && (
        <section aria-label="Critic answers" className="grid gap-3" style={{ gridTemplateColumns: `repeat(${runs.length}, minmax(0, 1fr))` }}>
          {runs.map((r) => (
            <Card key={r.run.id} padding="sm" className="text-sm">
              <h2 className="mb-1 text-xs font-semibold text-slate-600">{r.run.label} (critic answer)</h2>
              {r.criticOutput ? <RichText text={r.criticOutput} mode={textMode} /> : <span className="text-slate-400">—</span>}
            </Card>
          ))}
        </section>
      )}

      {runIds.length >= 2 && diffB && (
        <Card padding="sm" className="flex flex-wrap items-center gap-3 text-sm" role="group" aria-label="Diff settings">
          <span className="text-slate-600">Word diff of rationales:</span>
          <Select inline value={diffA} data-testid="item-diff-a" onChange={(e) => setParam("diffA", e.target.value)} options={runIds.map(runOption)} />
          <span>vs</span>
          <Select inline value={diffB} data-testid="item-diff-b" onChange={(e) => setParam("diffB", e.target.value)} options={runIds.filter((id) => id !== diffA).map(runOption)} />
          <label className="flex items-center gap-1">
            sample #
            <Select inline value={sample} data-testid="item-diff-sample" onChange={(e) => setParam("sample", e.target.value)} options={numberOptions(Array.from({ length: maxSamples }, (_, i) => i))} />
          </label>
          <span className="text-xs text-slate-500">
            <del className="bg-red-100 text-red-900">only in A</del> · <ins className="bg-green-100 text-green-900 no-underline">only in B</ins>
          </span>
        </Card>
      )}

      <ol className="space-y-3" aria-label="Chunks">
        {chunks.map((chunk) => {
          const a = chunk.judgements.find((j) => j.runId === diffA)?.samples.find((s) => s.sampleIndex === sample);
          const b = chunk.judgements.find((j) => j.runId === diffB)?.samples.find((s) => s.sampleIndex === sample);
          const isGold = chunk.index === solution.gold;
          return (
            <Card as="li" key={chunk.index} id={`chunk-${chunk.index}`} padding="sm" border={isGold ? "border-red-300" : undefined} data-testid="item-chunk" data-index={chunk.index}>
              <div className="mb-2 flex flex-wrap items-center gap-2 text-xs">
                <a href={`/solutions/${solution.id}#chunk-${chunk.index}`} className="font-mono text-slate-600 hover:underline">
                  #{chunk.index}
                </a>
                {isGold && <span className="rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">gold first error</span>}
                {runs.map((r) =>
                  r.prediction === chunk.index ? (
                    <span key={r.run.id} className="rounded bg-amber-100 px-1.5 py-0.5 text-amber-900">
                      first error per {r.run.name}
                    </span>
                  ) : null,
                )}
              </div>
              <RichText text={chunk.text} mode={textMode} className="mb-3 text-sm" />
              <div className="grid gap-3" style={{ gridTemplateColumns: `repeat(${chunk.judgements.length}, minmax(0, 1fr))` }}>
                {chunk.judgements.map((judgement) => (
                  <div key={judgement.runId} className="min-w-0 rounded border border-slate-200 bg-slate-50 p-2 text-xs" data-testid="item-judgement" data-run={judgement.runId} data-verdict={judgement.vote?.verdict ?? ""}>
                    <div className="mb-1 flex items-center gap-2">
                      <Truncate text={labelOf(judgement.runId)} className="font-medium text-slate-700" />
                      <Vote judgement={judgement} />
                    </div>
                    <RationaleList samples={judgement.samples} textMode={textMode} testId="item-rationale" itemClassName="bg-white" />
                  </div>
                ))}
              </div>
              {a && b && (
                <details open className="mt-2 rounded border border-slate-200 p-2">
                  <summary className="cursor-pointer text-xs text-slate-600">Word diff, sample #{sample}</summary>
                  <RationaleDiff a={a.rationale} b={b.rationale} />
                </details>
              )}
            </Card>
          );
        })}
      </ol>
    </div>
  );
}
