"use client";

import Link from "next/link";
import { HistogramChart } from "../../../datasets/[id]/overview/histogram-chart";
import { CHART_COLORS } from "~/components/ui";
import { Facts, ResultCard, UnreadableSummary } from "./result-parts";
import { chunksPerSolutionBars, generateFacts, promptFilterFacts, solutionShapeFacts, type ResultsOf } from "./shaping";

/** A generate run's results: accuracy, the prompt filter's outcome, and the length and chunks of the solutions it wrote. */
export function GenerateResults({ result }: { result: ResultsOf<"generate"> }) {
  const summary = result.summary;
  if (!summary) return <UnreadableSummary />;
  return (
    <div className="space-y-4">
      <ResultCard title="Accuracy" description="Graded against the problems' reference answers" testId="results-generate">
        <Facts facts={generateFacts(result)} />
        <Link href={`/datasets/${summary.outputDatasetId}`} className="text-blue-700 hover:underline">
          Open the solutions: {summary.outputDatasetName} →
        </Link>
      </ResultCard>
      <div className="grid gap-4 lg:grid-cols-2">
        <ResultCard title="Prompt filter" description="Problems by how their samples were graded" testId="results-prompt-filter">
          <Facts facts={promptFilterFacts(result)} />
        </ResultCard>
        <ResultCard title="Solutions" description="Length and self-segmented chunks of the solutions written" testId="results-solution-shape">
          <Facts facts={solutionShapeFacts(result)} />
        </ResultCard>
      </div>
      {result.chunksPerSolution.length > 0 && (
        <ResultCard title="Chunks per solution" description="Solutions by their number of self-segmented chunks">
          <HistogramChart bins={chunksPerSolutionBars(result)} series={[{ key: "solutions", name: "Solutions", color: CHART_COLORS.blue }]} xLabel="chunks" yLabel="solutions" />
        </ResultCard>
      )}
    </div>
  );
}
