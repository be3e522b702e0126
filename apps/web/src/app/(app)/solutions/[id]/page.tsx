"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { RichText, RichTextModeToggle, type RichTextMode } from "~/components/rich-text";
import { Button, Card, CardTitle, ErrorAlert, Select, ShortcutHelp } from "~/components/ui";
import { useShortcuts, type ShortcutMap } from "~/hooks/use-shortcuts";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { ChunkRow } from "./inspector/chunk-row";
import { inspectorChunkRows, inspectorSelection, qCurveValues } from "./inspector/chunk-rows";
import { LabelSliders } from "./inspector/label-sliders";
import { labelsFromValues } from "./inspector/labels";
import { QCurve } from "./inspector/q-curve";
import { RolloutsPanel } from "./inspector/rollouts-panel";
import { solutionJudgementViews } from "./inspector/solution-judgements";
import { SolutionJudgementsPanel } from "./inspector/solution-judgements-panel";
import { SolutionNav, useSolutionNeighbors } from "./inspector/solution-nav";
import { useLabelParams } from "./inspector/use-label-params";

/** Focus chunk `index`: scroll it to the middle, and put it in the URL so the view can be shared. */
function focusChunk(index: number) {
  const element = document.getElementById(`chunk-${index}`);
  element?.scrollIntoView({ block: "center" });
  element?.focus({ preventScroll: true });
  history.replaceState(null, "", `#chunk-${index}`);
}

export default function SolutionInspectorPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const view = useQuery(trpc.solution.inspect.queryOptions({ id }));
  const [segmentationId, setSegmentationId] = useState<string | null>(null);
  const [annotateRunId, setAnnotateRunId] = useState<string | null>(null);
  const [params, setParams] = useLabelParams();
  const [active, setActive] = useState(0);
  const [help, setHelp] = useState(false);
  const [rollouts, setRollouts] = useState<{ runId: string; prefixLength: number; chunkIndex: number } | null>(null);
  const [textMode, setTextMode] = useState<RichTextMode>("rendered");

  const t = view.data;
  const { segmentation, annotateRuns, annotateRun } = inspectorSelection(t, { segmentationId, annotateRunId });
  const chunks = useMemo(() => segmentation?.chunks ?? [], [segmentation]);
  const labels = useMemo(
    () => (annotateRun ? labelsFromValues(annotateRun.values, chunks.length, params, { chunkIds: chunks.map((c) => c.id), stored: annotateRun.labels, options: annotateRun.labelConfidence }) : null),
    [annotateRun, chunks, params],
  );
  const rows = useMemo(
    () => inspectorChunkRows({ chunks, sourceFirstErrorIndex: t?.sourceFirstErrorIndex ?? null, annotateRun, labels, judgements: t?.judgements ?? [] }),
    [annotateRun, chunks, labels, t],
  );
  const solutionViews = useMemo(() => solutionJudgementViews(t?.solutionJudgements ?? []), [t]);
  const neighbors = useSolutionNeighbors(t?.dataset.id, id);

  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(chunks.length - 1, index));
    setActive(next);
    focusChunk(next);
  };
  const shortcuts: ShortcutMap = {
    j: { description: "next / previous chunk", run: () => moveTo(active + 1) },
    k: { description: "next / previous chunk", run: () => moveTo(active - 1) },
    n: { description: "next / previous solution in the list you came from", run: () => neighbors.go(neighbors.next) },
    p: { description: "next / previous solution in the list you came from", run: () => neighbors.go(neighbors.previous) },
    "?": { description: "show or hide this help", run: () => setHelp((h) => !h) },
  };
  useShortcuts(shortcuts, { enabled: t !== undefined });

  // A permalink (#chunk-3) opens at that chunk, also when only the hash changes.
  useEffect(() => {
    if (!t) return;
    const follow = () => {
      const match = /^#chunk-(\d+)$/.exec(window.location.hash);
      if (!match) return;
      const index = Number(match[1]);
      setActive(index);
      document.getElementById(`chunk-${index}`)?.scrollIntoView({ block: "center" });
    };
    follow();
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, [t]);

  if (view.error) return <ErrorAlert>{errorMessage(view.error)}</ErrorAlert>;
  if (!t) return <p className="text-sm text-slate-500">Loading…</p>;
  const firstError = t.sourceFirstErrorIndex;
  const curve = annotateRun ? qCurveValues(chunks, annotateRun.values) : null;
  const segmentationOptions = t.segmentations.map((s) => [s.id, s.method] as const);
  const annotateRunOptions = annotateRuns.map((a) => [a.runId, a.label] as const);

  return (
    <div className="space-y-4">
      <div>
        <SolutionNav datasetId={t.dataset.id} datasetName={t.dataset.name} neighbors={neighbors} />
        <h1 className="mt-1 font-mono text-xl font-semibold">{t.externalId}</h1>
        <p className="text-sm text-slate-600">
          {t.subset ?? "—"} · {t.generator} · final answer {t.finalAnswer ?? "—"}{" "}
          {t.finalAnswerCorrect === null ? "(not graded)" : t.finalAnswerCorrect ? "(correct)" : "(wrong)"}
        </p>
      </div>

      <Card as="section" aria-labelledby="problem-heading">
        <CardTitle id="problem-heading" className="mb-2 text-slate-600">
          Problem
        </CardTitle>
        <RichText text={t.problem.text} mode={textMode} className="text-sm" />
        <p className="mt-2 text-sm">
          <span className="text-slate-500">Reference answer: </span>
          <span className="font-mono">{t.problem.referenceAnswer ?? "—"}</span>
          <span className="ml-4 text-slate-500">Source first error: </span>
          {firstError === null ? "unknown" : firstError < 0 ? <span>none (No error)</span> : <a href={`#chunk-${firstError}`} className="text-blue-700 hover:underline">chunk {firstError}</a>}
        </p>
      </Card>

      <div className="flex flex-wrap items-center gap-3">
        {t.segmentations.length > 1 && <Select inline aria-label="Segmentation" className="text-sm" value={segmentation?.id ?? ""} onChange={(e) => setSegmentationId(e.target.value)} options={segmentationOptions} />}
        {annotateRuns.length > 1 && <Select inline aria-label="Annotate run" className="text-sm" value={annotateRun?.runId ?? ""} onChange={(e) => setAnnotateRunId(e.target.value)} options={annotateRunOptions} />}
        {annotateRun && <LabelSliders params={params} onChange={setParams} />}
        <RichTextModeToggle mode={textMode} onModeChange={setTextMode} />
        <Button variant="subtle" className="text-xs" onClick={() => setHelp(!help)}>
          keyboard (?)
        </Button>
      </div>
      {help && <ShortcutHelp shortcuts={shortcuts} />}
      {annotateRun && curve && <QCurve q0={curve.q0} q={curve.q} gamma={params.gamma} relRatio={labels?.relRatio ?? null} />}

      <SolutionJudgementsPanel views={solutionViews} textMode={textMode} />

      {rows.length === 0 ? (
        <p className="text-sm text-slate-600">This solution has not been segmented yet.</p>
      ) : (
        <ol className="space-y-2" aria-label="Chunks">
          {rows.map((row) => (
            <ChunkRow
              key={row.id}
              row={row}
              active={active === row.index}
              textMode={textMode}
              onRollouts={annotateRun && row.rolloutsPrefixLength !== null ? () => setRollouts(rollouts?.chunkIndex === row.index ? null : { runId: annotateRun.runId, prefixLength: row.rolloutsPrefixLength!, chunkIndex: row.index }) : undefined}
              rollouts={
                rollouts && segmentation && rollouts.chunkIndex === row.index ? <RolloutsPanel runId={rollouts.runId} segmentationId={segmentation.id} prefixLength={rollouts.prefixLength} onClose={() => setRollouts(null)} /> : undefined
              }
            />
          ))}
        </ol>
      )}
    </div>
  );
}
