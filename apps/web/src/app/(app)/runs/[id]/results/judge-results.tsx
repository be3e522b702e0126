"use client";

import Link from "next/link";
import { Bar, BarChart, CartesianGrid, Cell, Tooltip, XAxis, YAxis } from "recharts";
import { CHART_COLORS, ChartFigure } from "~/components/ui";
import { count, percent } from "./format";
import { Facts, ResultCard, ResultTable, UnreadableSummary } from "./result-parts";
import { agreementView, judgeOutputsFact, verdictRows, type ResultsOf } from "./shaping";

const VERDICT_COLOR: Record<string, string> = { Positive: CHART_COLORS.green, Negative: CHART_COLORS.red, unparseable: CHART_COLORS.muted };
const VERDICT_TONE: Record<string, string> = { Positive: "text-green-800", Negative: "text-red-800", unparseable: "text-slate-500" };

/** A judge run's results: its verdicts, and its agreement with each label rule of the dataset's annotate runs and with the source's first errors. */
export function JudgeResults({ result }: { result: ResultsOf<"judge"> }) {
  const verdicts = verdictRows(result);
  return (
    <div className="space-y-4">
      <ResultCard title="Verdicts" description={result.summary ? `${count(result.summary.samples)} samples on ${count(result.judgedChunks)} chunks` : undefined} testId="results-verdicts">
        {!result.summary ? (
          <UnreadableSummary />
        ) : (
          <div className="grid gap-4 md:grid-cols-2">
            <div className="space-y-2">
              <ResultTable label="Verdict distribution" head={["Verdict", "Samples", "Share"]} rows={verdicts.map((v) => ({ key: v.verdict, cells: [<span key="v" className={VERDICT_TONE[v.verdict]}>{v.verdict}</span>, count(v.samples), v.share] }))} />
              <p>
                Unparseable rate{" "}
                <span className="font-semibold tabular-nums" data-testid="unparseable-rate">
                  {percent(result.summary.unparseableRate)}
                </span>
              </p>
              <Facts facts={[judgeOutputsFact(result.summary.judgeOutputs), ...(result.summary.judgePromptTemplateId ? [{ label: "Judge prompt", value: result.summary.judgePromptTemplateId }] : [])]} />
            </div>
            <ChartFigure label="Verdict distribution chart" caption="Samples per verdict" height="h-40">
              <BarChart data={verdicts} margin={{ top: 5, right: 10, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} vertical={false} />
                <XAxis dataKey="verdict" tick={{ fontSize: 11 }} />
                <YAxis allowDecimals={false} tick={{ fontSize: 11 }} width={48} />
                <Tooltip formatter={(value) => (typeof value === "number" ? count(value) : String(value))} />
                <Bar dataKey="samples" name="Samples" isAnimationActive={false}>
                  {verdicts.map((v) => (
                    <Cell key={v.verdict} fill={VERDICT_COLOR[v.verdict]} />
                  ))}
                </Bar>
              </BarChart>
            </ChartFigure>
          </div>
        )}
      </ResultCard>
      <section aria-label="Agreement" className="space-y-2">
        <div>
          <h2 className="text-base font-semibold">Agreement</h2>
          <p className="text-xs text-slate-500">
            The run&apos;s majority verdict per chunk (ties: {result.tiePolicy}) against each label rule of this dataset&apos;s annotate runs and against the source&apos;s first errors (chunks before it
            Positive, it Negative, those after it left out), on the chunks both read. F1 of the Negative class; Cohen&apos;s κ with an unparseable verdict as a category of its own.
          </p>
        </div>
        {result.agreements.length === 0 ? (
          <p className="text-sm text-slate-500">No annotate run of this dataset labelled these chunks, and its solutions have no source first errors: nothing to compare with.</p>
        ) : (
          <div className="grid gap-4 xl:grid-cols-2">
            {result.agreements.map((agreement) => (
              <AgreementCard key={agreementView(agreement).key} view={agreementView(agreement)} />
            ))}
          </div>
        )}
      </section>
    </div>
  );
}

function AgreementCard({ view }: { view: ReturnType<typeof agreementView> }) {
  return (
    <ResultCard title={view.title} testId="results-agreement">
      {view.annotateRunId && (
        <Link href={`/runs/${view.annotateRunId}`} className="text-xs text-blue-700 hover:underline">
          Open the annotate run →
        </Link>
      )}
      <Facts facts={view.facts} />
      <table aria-label={`Confusion matrix: ${view.title}`} className="text-sm" data-testid="confusion-matrix">
        <thead>
          <tr className="text-xs text-slate-600">
            <th className="px-2 py-1 text-left">Reference ↓ / judge →</th>
            {view.columns.map((c) => (
              <th key={c} className={`px-2 py-1 text-right ${VERDICT_TONE[c]}`}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {view.rows.map((row) => (
            <tr key={row.reference}>
              <th className={`px-2 py-1 text-left text-xs font-medium ${VERDICT_TONE[row.reference]}`}>{row.reference}</th>
              {row.cells.map((cell) => (
                <td key={cell.judge} className={`px-2 py-1 text-right tabular-nums ${cell.agrees ? "bg-green-50 font-semibold" : ""}`}>
                  {cell.count}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {view.totalDisagreements > 0 && (
        <details>
          <summary className="cursor-pointer text-slate-600">
            {count(view.totalDisagreements)} disagreeing chunk{view.totalDisagreements === 1 ? "" : "s"}
            {view.moreDisagreements > 0 ? ` (first ${count(view.disagreements.length)} listed)` : ""}
          </summary>
          <ul className="mt-1 grid gap-x-4 sm:grid-cols-2">
            {view.disagreements.map((d) => (
              <li key={d.key} className="flex gap-2 text-xs">
                <Link href={d.href} className="font-mono text-blue-700 hover:underline" data-testid="disagreement-link">
                  {d.text}
                </Link>
                <span>
                  judge <span className={VERDICT_TONE[d.judge]}>{d.judge}</span>, reference <span className={VERDICT_TONE[d.reference]}>{d.reference}</span>
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </ResultCard>
  );
}
