"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, CHART_COLORS, CHART_MARGIN, ChartFigure, DataTable, dataColumns, ErrorAlert, Select, Y_AXIS, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import type { CompareParams } from "./compare-params";
import { Hint, numberOptions, type Candidates } from "./shared";
import { ReadingPickers, useReadingChoice } from "./reading-pickers";

type Bin = RouterOutputs["compare"]["calibration"]["bins"][number];

const column = dataColumns<Bin>();
const share = (value: number | null) => (value === null ? "—" : value.toFixed(3));
const BIN_COLUMNS: DataColumn<Bin>[] = [
  column.display({ id: "range", header: "Vote share", meta: { className: "tabular-nums" }, cell: ({ row: { original: b } }) => `[${b.lower.toFixed(2)}, ${b.upper.toFixed(2)}${b.upper === 1 ? "]" : ")"}` }),
  column.accessor("count", { header: "Chunks", cell: (c) => c.getValue().toLocaleString(), meta: { align: "right" } }),
  column.accessor("meanPredicted", { header: "Mean share", cell: (c) => share(c.getValue()), meta: { align: "right" } }),
  column.accessor("observedRate", { header: "Reference Positive", cell: (c) => share(c.getValue()), meta: { align: "right" } }),
];

/** Reliability of the judge's share of Positive votes against the Monte-Carlo or the human label. */
export function CalibrationTab({ runs, candidates, params }: { runs: string[]; candidates: Candidates; params: CompareParams }) {
  const trpc = useTRPC();
  const choice = useReadingChoice(candidates, runs, params);
  const reference = params.get("reference") === "human" ? "human" : "mc";
  const bins = Math.min(50, Math.max(2, Number.parseInt(params.get("bins") ?? "10", 10) || 10));
  const ready = choice.judge !== undefined && (reference === "human" || choice.annotate !== undefined);
  const result = useQuery({
    ...trpc.compare.calibration.queryOptions({ judgeRunId: choice.judge ?? "", reference, annotateRunId: reference === "mc" ? choice.annotate : undefined, rule: reference === "mc" ? choice.rule : undefined, queueId: reference === "human" ? choice.queue : undefined, bins }),
    enabled: ready,
  });
  const data = result.data;
  const points = (data?.bins ?? []).filter((b) => b.count > 0).map((b) => ({ predicted: b.meanPredicted!, observed: b.observedRate!, count: b.count }));
  return (
    <div className="space-y-3">
      <ReadingPickers candidates={candidates} choice={choice} params={params} annotate={reference === "mc"} queue={reference === "human"} />
      <div className="flex flex-wrap items-center gap-4 text-sm">
        <fieldset className="flex items-center gap-3">
          <legend className="sr-only">Reference label</legend>
          <span className="text-slate-600">Reference:</span>
          {(["mc", "human"] as const).map((r) => (
            <label key={r} className="flex items-center gap-1">
              <input type="radio" name="reference" checked={reference === r} onChange={() => params.update({ reference: r })} data-testid={`calibration-reference-${r}`} />
              {r === "mc" ? "Monte-Carlo label" : "human label"}
            </label>
          ))}
        </fieldset>
        <label className="flex items-center gap-2">
          <span className="text-slate-600">Bins</span>
          <Select inline value={bins} data-testid="calibration-bins" onChange={(e) => params.update({ bins: e.target.value })} options={numberOptions([5, 10, 20])} />
        </label>
      </div>
      {!ready && <Hint>{choice.judge === undefined ? "No run on this dataset stored per-chunk judge samples." : "No annotate run with stored labels on this dataset."}</Hint>}
      {result.error && <ErrorAlert>{errorMessage(result.error)}</ErrorAlert>}
      {ready && !data && !result.error && <Hint>Loading…</Hint>}
      {data && (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <ChartFigure label="Reliability diagram" caption="Observed share of reference-Positive chunks vs the judge's Positive vote share" testId="calibration-chart" height="h-64">
            <LineChart margin={CHART_MARGIN}>
              <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
              <XAxis dataKey="predicted" type="number" domain={[0, 1]} tick={AXIS_TICK} allowDuplicatedCategory={false} />
              <YAxis domain={[0, 1]} {...Y_AXIS} />
              <Tooltip formatter={(value) => (typeof value === "number" ? value.toFixed(3) : String(value))} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              <Line data={[{ predicted: 0, observed: 0 }, { predicted: 1, observed: 1 }]} dataKey="observed" name="perfect calibration" stroke={CHART_COLORS.muted} strokeDasharray="4 3" dot={false} isAnimationActive={false} />
              <Line data={points} dataKey="observed" name="judge" stroke={CHART_COLORS.blue} isAnimationActive={false} />
            </LineChart>
          </ChartFigure>
          <div className="space-y-2 text-sm">
            <p>
              Expected calibration error:{" "}
              <span className="font-semibold tabular-nums" data-testid="calibration-ece" data-value={data.expectedCalibrationError}>
                {data.expectedCalibrationError.toFixed(3)}
              </span>{" "}
              <span className="text-slate-500">
                over <span data-testid="calibration-total">{data.total.toLocaleString()}</span> chunks ({data.skipped.toLocaleString()} without a parsed vote or a reference skipped)
              </span>
            </p>
            <DataTable testId="calibration-table" data={data.bins} columns={BIN_COLUMNS} getRowId={(b) => String(b.lower)} rowAttributes={(b) => ({ "data-testid": "calibration-bin", "data-count": b.count })} />
          </div>
        </div>
      )}
    </div>
  );
}
