"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { Card, ErrorAlert, Truncate } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { Hint, runLabel, type Candidates } from "./shared";
import { intervalText, pct, pValueText, signedPct, significance } from "./format";
import { averageLabel } from "@stepwiser/core";
import {
  leaderboardColumns,
  measuredF1Text,
  measuredLeaderboard,
  simulatedJudgeNote,
  prmscoreCellText,
  PUBLISHED_PRMBENCH_CLASS_HEADINGS,
  PUBLISHED_SUBSET_HEADINGS,
  publishedCaveat,
  publishedPrmbenchCaveat,
  publishedPrmbenchRows,
  publishedPrmbenchSources,
  publishedRows,
  publishedSources,
  sameJudgeText,
  type MeasuredRow,
  type SameJudgeRun,
} from "./leaderboard";

type Comparison = RouterOutputs["compare"]["checkpoints"];
type RunScores = Comparison["runs"][number];
const METRICS = [
  ["f1", "F1"],
  ["acc_err", "acc_err"],
  ["acc_cor", "acc_cor"],
] as const;
type Metric = (typeof METRICS)[number][0];

const TONE = { better: "bg-green-50 text-green-800", worse: "bg-red-50 text-red-800", none: "text-slate-700" } as const;

/**
 * Per subset and on average: each run's F1, acc_err and acc_cor with 95 %
 * bootstrap intervals, and each run's paired difference from the baseline.
 * A difference is coloured only when its interval excludes 0. The average is
 * named for the subsets it is over (a partial average unless ProcessBench's four).
 */
export function MetricsTab({ runs, baseline, candidates }: { runs: string[]; baseline: string | undefined; candidates: Candidates }) {
  const trpc = useTRPC();
  const enough = runs.length >= 2 && baseline !== undefined;
  const result = useQuery({ ...trpc.compare.checkpoints.queryOptions({ runIds: runs, baselineRunId: baseline ?? "" }), enabled: enough, staleTime: 5 * 60_000 });
  if (!enough) return <Hint>Pick two to eight runs and a baseline above.</Hint>;
  if (result.error) return <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>;
  if (!result.data) return <Hint>Scoring and bootstrapping ({runs.length} runs)…</Hint>;
  const data = result.data;
  const groups: Array<[string, (r: RunScores) => RunScores["average"], (r: RunScores) => NonNullable<RunScores["delta"]>["average"] | null]> = [
    ...data.subsets.map((s): (typeof groups)[number] => [s, (r) => r.bySubset[s]!, (r) => r.delta?.bySubset[s] ?? null]),
    ["average", (r) => r.average, (r) => r.delta?.average ?? null],
  ];
  const averageName = averageLabel(data.average.subsets_in_average);
  return (
    <div className="space-y-2">
      <p className="text-xs text-slate-500" data-testid="metrics-summary">
        {data.gold.toLocaleString()} gold solutions shared by every run · {Math.round(data.confidence * 100)} % percentile-bootstrap intervals over solutions ({data.resamples.toLocaleString()} resamples, seed {data.seed}) · differences are paired (same resampled solutions for both runs) · the average is the unweighted mean over the subsets here: {averageName}, its resamples keeping each subset's solutions within the subset. Scores in %.
      </p>
      <Leaderboard data={data} candidates={candidates} />
      {data.benchmark === "prmbench" && (
        <p className="text-xs text-amber-800" data-testid="metrics-first-error-note">
          This dataset is a PRMBench import: the per-class F1, acc_err and acc_cor below are the first-error reading (ProcessBench&apos;s metric computed from each item&apos;s first error step), not PRMBench&apos;s metric; its PRMScore is in the leaderboard above.
        </p>
      )}
      {/* Not a DataTable: each subset's name spans its runs' rows. */}
      <Card padding="none" className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="metrics-table">
          <thead className="bg-slate-50 text-left text-xs text-slate-600">
            <tr>
              <th className="px-3 py-2">Subset</th>
              <th className="px-3 py-2">Run</th>
              <th className="px-3 py-2 text-right">n</th>
              {METRICS.map(([key, name]) => (
                <th key={key} className="px-3 py-2">
                  {name} (95 % CI)
                </th>
              ))}
              {METRICS.map(([key, name]) => (
                <th key={`d-${key}`} className="px-3 py-2">
                  Δ {name} vs baseline
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {groups.map(([subset, scoreOf, deltaOf]) =>
              data.runs.map((row, i) => {
                const score = scoreOf(row);
                const delta = deltaOf(row);
                return (
                  <tr key={`${subset}-${row.id}`} className={`border-t border-slate-100 ${i === 0 ? "border-t-slate-300" : ""}`} data-testid="metrics-row" data-subset={subset} data-run={row.id}>
                    {i === 0 && (
                      <th rowSpan={data.runs.length} scope="rowgroup" className="px-3 py-2 text-left align-top font-medium" data-testid={subset === "average" ? "metrics-average-label" : undefined}>
                        {subset === "average" ? averageName : subset}
                      </th>
                    )}
                    <td className="px-3 py-2">
                      <RunName label={runLabel(candidates, row.id)} baseline={row.isBaseline} />
                      <ProtocolTag label={row.protocol.label} refText={row.protocol.ref} />
                    </td>
                    <td className="px-3 py-2 text-right tabular-nums">{score.n.toLocaleString()}</td>
                    {METRICS.map(([metric]) => (
                      <MetricCell key={metric} run={row.id} subset={subset} metric={metric} value={score[metric]} ci={score.ci[metric]} measured={metric === "acc_err" ? score.n_error > 0 : metric === "acc_cor" ? score.n_correct > 0 : true} />
                    ))}
                    {METRICS.map(([metric]) =>
                      delta ? (
                        <DeltaCell key={metric} run={row.id} subset={subset} metric={metric} delta={delta[metric]} resamples={data.resamples} />
                      ) : (
                        <td key={metric} className="px-3 py-2 text-slate-400">
                          —
                        </td>
                      ),
                    )}
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      </Card>
      {data.runs.some((r) => r.missing > 0) && (
        <p className="text-xs text-amber-700">Some runs lack predictions for solutions in every run's scope; those count as wrong: {data.runs.filter((r) => r.missing > 0).map((r) => `${runLabel(candidates, r.id)} (${r.missing})`).join(", ")}.</p>
      )}
    </div>
  );
}

/** A run's name on one line (shortened past 18 rem, whole in its tooltip), after a baseline mark. */
function RunName({ label, baseline }: { label: string; baseline: boolean }) {
  return (
    <span className="flex max-w-72 items-center gap-1">
      {baseline && <span className="shrink-0 rounded bg-slate-200 px-1 text-xs">baseline</span>}
      <Truncate text={label} />
    </span>
  );
}

function ProtocolTag({ label, refText }: { label: string; refText: string }) {
  return (
    <span className="block max-w-72 text-xs text-slate-500" data-testid="run-protocol" data-protocol={refText}>
      {label} <code className="text-slate-400">{refText}</code>
    </span>
  );
}

/**
 * The runs ranked by average F1, or on a PRMBench import by PRMScore (with the protocol each
 * spoke; a partial average is named so in its own column), each beside the other benchmark's
 * figure of the same judge, named with the run it comes from; and apart below them, in tables
 * of their own, the ProcessBench F1s and the PRMBench PRMScores published elsewhere: muted,
 * under their own headings, never mixed into the ranking.
 */
function Leaderboard({ data, candidates }: { data: Comparison; candidates: Candidates }) {
  const measured = measuredLeaderboard(data.runs, data.benchmark);
  const simulatedNote = simulatedJudgeNote(measured);
  const columns = leaderboardColumns(data.benchmark, data.average);
  const published = publishedRows(data.published);
  const prmbenchFirst = data.benchmark === "prmbench";
  const processBenchReference = <ProcessBenchReference key="processbench" data={data} published={published} />;
  const prmbenchReference = <PrmbenchReference key="prmbench" data={data} />;
  return (
    <Card padding="none" className="overflow-x-auto">
      <table className="w-full text-sm" data-testid="leaderboard" data-benchmark={data.benchmark}>
        <caption className="px-3 pt-2 text-left text-sm font-semibold text-slate-800">{columns.caption}</caption>
        <thead className="bg-slate-50 text-left text-xs text-slate-600">
          <tr>
            <th className="px-3 py-2 text-right">#</th>
            <th className="px-3 py-2">Run</th>
            <th className="px-3 py-2">Protocol</th>
            {prmbenchFirst && (
              <th className="px-3 py-2" data-testid="leaderboard-prmscore-heading">
                {columns.prmscoreHeading}
              </th>
            )}
            <th className="px-3 py-2" data-testid="leaderboard-average-heading" data-partial={columns.f1Partial}>
              {columns.f1Heading}
            </th>
            {!prmbenchFirst && (
              <th className="px-3 py-2" data-testid="leaderboard-prmscore-heading">
                {columns.prmscoreHeading}
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {measured.map((row) => (
            <tr key={row.id} className="border-t border-slate-100" data-testid="leaderboard-row" data-run={row.id} data-rank={row.rank ?? undefined} data-value={row.value ?? undefined}>
              <td className="px-3 py-2 text-right tabular-nums">{row.rank ?? "—"}</td>
              <td className="px-3 py-2">
                <RunName label={runLabel(candidates, row.id)} baseline={row.isBaseline} />
                {row.simulated && (
                  <span className="ml-1 rounded bg-slate-100 px-1 text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300" data-testid="leaderboard-simulated">
                    simulated
                  </span>
                )}
              </td>
              <td className="px-3 py-2" data-testid="leaderboard-protocol" data-protocol={row.protocolRef}>
                {row.protocolLabel} <code className="text-xs text-slate-400">{row.protocolRef}</code>
                {row.template && (
                  <>
                    {" "}
                    <code className="text-xs text-slate-400" data-testid="leaderboard-template">
                      {row.template}
                    </code>
                  </>
                )}
              </td>
              {prmbenchFirst && <PrmscoreCell row={row} />}
              <F1Cell row={row} partial={columns.f1Partial} />
              {!prmbenchFirst && <PrmscoreCell row={row} />}
            </tr>
          ))}
        </tbody>
      </table>
      {simulatedNote && (
        <p className="px-3 pt-1 pb-2 text-xs text-slate-600 dark:text-slate-300" data-testid="leaderboard-simulated-note">
          {simulatedNote}
        </p>
      )}
      {prmbenchFirst ? [prmbenchReference, processBenchReference] : [processBenchReference, prmbenchReference]}
    </Card>
  );
}

/** Where a figure of the same judge comes from, under it. */
function FromRun({ from }: { from: SameJudgeRun | null }) {
  if (!from) return null;
  return (
    <span className="block max-w-80 text-xs whitespace-normal text-slate-500" data-testid="leaderboard-same-judge" data-run={from.runId} title={`${sameJudgeText(from)} (${from.protocolRef})`}>
      {sameJudgeText(from)}
    </span>
  );
}

function F1Cell({ row, partial }: { row: MeasuredRow; partial: boolean }) {
  const f1 = row.processBench;
  return (
    <td className="px-3 py-2 whitespace-nowrap tabular-nums" data-testid="leaderboard-f1" data-value={f1?.averageF1}>
      {f1 && (partial || f1.partial) && (
        <span className="mr-1 rounded bg-amber-100 px-1 text-xs text-amber-800" data-testid="leaderboard-partial">
          partial
        </span>
      )}
      <span className="font-medium">{measuredF1Text(row)}</span> {f1?.ci && <span className="text-xs text-slate-500">{intervalText(f1.ci.lower, f1.ci.upper)}</span>}
      {f1 && <FromRun from={f1.from} />}
    </td>
  );
}

function PrmscoreCell({ row }: { row: MeasuredRow }) {
  return (
    <td className="px-3 py-2 whitespace-nowrap tabular-nums" data-testid="leaderboard-prmscore" data-value={row.prmbench?.prmscore}>
      <span className="font-medium">{prmscoreCellText(row)}</span>
      {row.prmbench && <FromRun from={row.prmbench.from} />}
    </td>
  );
}

function ProcessBenchReference({ data, published }: { data: Comparison; published: ReturnType<typeof publishedRows> }) {
  return (
    <section aria-labelledby="published-reference-heading" data-testid="published-reference" className="mt-2 border-t-4 border-double border-slate-200 bg-slate-50 text-slate-500">
      <h3 id="published-reference-heading" className="px-3 pt-3 text-sm font-semibold text-slate-600">
        Published (reference) <span className="font-normal">— not measured here</span>
      </h3>
      <table className="w-full text-sm">
        <thead className="text-left text-xs">
          <tr>
            <th className="px-3 py-2">Model</th>
            <th className="px-3 py-2">Judge family</th>
            {Object.values(PUBLISHED_SUBSET_HEADINGS).map((heading) => (
              <th key={heading} className="px-3 py-2 text-right">
                {heading}
              </th>
            ))}
            <th className="px-3 py-2">Average F1 over the 4 subsets (published)</th>
            <th className="px-3 py-2">Source</th>
          </tr>
        </thead>
        <tbody>
          {published.map((row) => (
            <tr key={row.model} className="border-t border-slate-100 italic" data-testid="published-row" data-model={row.model} data-value={row.averageF1}>
              <td className="px-3 py-1.5">
                {row.model}
                {row.note && (
                  <span className="block text-xs not-italic text-amber-700" data-testid="published-note">
                    {row.note}
                  </span>
                )}
              </td>
              <td className="px-3 py-1.5">
                {row.family}
                {row.protocolText && <span className="block text-xs not-italic text-slate-400">studio protocol: {row.protocolText}</span>}
              </td>
              {row.subsetTexts.map((text, i) => (
                <td key={i} className="px-3 py-1.5 text-right tabular-nums" data-testid="published-subset">
                  {text}
                </td>
              ))}
              <td className="px-3 py-1.5 whitespace-nowrap tabular-nums" data-testid="published-average" title={row.votedSubsetsText ?? undefined}>
                {row.averageF1Text}
                {row.votedText && <span className="text-xs"> ({row.votedText})</span>}
              </td>
              <td className="px-3 py-1.5 text-xs" data-testid="published-source">
                {row.source}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="px-3 py-2 text-xs" data-testid="published-caveat">
        {publishedCaveat(data.average)} Sources: {publishedSources(data.published).join("; ")}.
      </p>
    </section>
  );
}

/** PRMBench's published PRMScores, overall and per class, each row with its source: apart from the measured runs. */
function PrmbenchReference({ data }: { data: Comparison }) {
  const rows = publishedPrmbenchRows(data.publishedPrmbench);
  return (
    <section aria-labelledby="published-prmbench-heading" data-testid="published-prmbench" className="mt-2 border-t-4 border-double border-slate-200 bg-slate-50 text-slate-500">
      <h3 id="published-prmbench-heading" className="px-3 pt-3 text-sm font-semibold text-slate-600">
        Published PRMBench PRMScores (reference) <span className="font-normal">— not measured here</span>
      </h3>
      <table className="w-full text-sm">
        <thead className="text-left text-xs">
          <tr>
            <th className="px-3 py-2">Model</th>
            <th className="px-3 py-2">Judge family</th>
            <th className="px-3 py-2 text-right">PRMScore (overall)</th>
            {PUBLISHED_PRMBENCH_CLASS_HEADINGS.map((c) => (
              <th key={c.classification} className="px-2 py-2 text-right" title={`${c.name} (${c.classification})`}>
                {c.heading}
              </th>
            ))}
            <th className="px-3 py-2">Source</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.model} className="border-t border-slate-100 italic" data-testid="published-prmbench-row" data-model={row.model} data-value={row.prmscore}>
              <td className="px-3 py-1.5">
                {row.model}
                {row.note && <span className="block text-xs not-italic text-amber-700">{row.note}</span>}
              </td>
              <td className="px-3 py-1.5">
                {row.family}
                {row.protocolText && <span className="block text-xs not-italic text-slate-400">studio protocol: {row.protocolText}</span>}
              </td>
              <td className="px-3 py-1.5 text-right font-medium tabular-nums" data-testid="published-prmscore">
                {row.prmscoreText}
              </td>
              {row.classTexts.map((text, i) => (
                <td key={i} className="px-2 py-1.5 text-right tabular-nums">
                  {text}
                </td>
              ))}
              <td className="px-3 py-1.5 text-xs" data-testid="published-prmbench-source">
                {row.source}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="px-3 py-2 text-xs" data-testid="published-prmbench-caveat">
        {publishedPrmbenchCaveat(data.benchmark)} Source: {publishedPrmbenchSources(data.publishedPrmbench).join("; ")}.
      </p>
    </section>
  );
}

/** `measured` false: an accuracy of a class the scope has no solution of (0 by convention), shown without an interval. */
function MetricCell({ run, subset, metric, value, ci, measured }: { run: string; subset: string; metric: Metric; value: number; ci: { lower: number; upper: number }; measured: boolean }) {
  return (
    <td className="px-3 py-2 whitespace-nowrap tabular-nums" data-testid="metric-cell" data-run={run} data-subset={subset} data-metric={metric} data-value={value}>
      <span data-testid="metric-value" className="font-medium">
        {pct(value)}
      </span>{" "}
      <span data-testid="metric-ci" className="block text-xs text-slate-500" title={measured ? undefined : "no solution of this class here: nothing measured"}>
        {measured ? intervalText(ci.lower, ci.upper) : "—"}
      </span>
    </td>
  );
}

function DeltaCell({ run, subset, metric, delta, resamples }: { run: string; subset: string; metric: Metric; delta: { estimate: number; lower: number; upper: number; pValue: number }; resamples: number }) {
  const sign = significance(delta.lower, delta.upper);
  return (
    <td
      className={`px-3 py-2 whitespace-nowrap tabular-nums ${TONE[sign]}`}
      data-testid="delta-cell"
      data-run={run}
      data-subset={subset}
      data-metric={metric}
      data-value={delta.estimate}
      data-significance={sign}
      title={sign === "none" ? "the interval includes 0" : `the interval excludes 0: ${sign} than the baseline`}
    >
      <span data-testid="delta-value" className="font-medium">
        {signedPct(delta.estimate)}
      </span>{" "}
      <span data-testid="delta-ci" className="block text-xs">
        {intervalText(delta.lower, delta.upper, true)}
      </span>{" "}
      <span data-testid="delta-p" className="block text-xs opacity-80">
        {pValueText(delta.pValue, resamples)}
      </span>
    </td>
  );
}
