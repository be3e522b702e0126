"use client";

import type { Verdict } from "@stepwiser/core";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { ErrorAlert } from "~/components/ui";
import { RichText, RichTextModeToggle, type RichTextMode } from "~/components/rich-text";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { ChunkRow } from "./inspector/chunk-row";
import { LabelSliders } from "./inspector/label-sliders";
import { QCurve } from "./inspector/q-curve";
import { labelsFromValues } from "./inspector/labels";
import { RolloutsPanel } from "./inspector/rollouts-panel";
import { SolutionNav } from "./inspector/solution-nav";
import { useLabelParams } from "./inspector/use-label-params";

const HELP = [
  ["j / k", "next / previous chunk"],
  ["n / p", "next / previous solution in the list you came from"],
  ["?", "show or hide this help"],
];

export default function TrajectoryInspectorPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const view = useQuery(trpc.trajectory.inspect.queryOptions({ id }));
  const [segmentationId, setSegmentationId] = useState<string | null>(null);
  const [annotationRunId, setAnnotationRunId] = useState<string | null>(null);
  const [params, setParams] = useLabelParams();
  const [active, setActive] = useState(0);
  const [help, setHelp] = useState(false);
  const [rollouts, setRollouts] = useState<{ runId: string; prefixLength: number } | null>(null);
  const [textMode, setTextMode] = useState<RichTextMode>("rendered");

  const t = view.data;
  const segmentation = t?.segmentations.find((s) => s.id === segmentationId) ?? t?.segmentations[0];
  const chunks = segmentation?.chunks ?? [];
  const annotations = (t?.annotations ?? []).filter((a) => a.segmentationId === segmentation?.id);
  const annotation = annotations.find((a) => a.runId === annotationRunId) ?? annotations[0];
  const labels = useMemo(() => (annotation ? labelsFromValues(annotation.values, chunks.length, params) : null), [annotation, chunks.length, params]);

  // Keyboard: j/k move between chunks (and the URL hash follows, so the view is shareable), ? toggles help.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || event.metaKey || event.ctrlKey) return;
      if (event.key === "?") setHelp((h) => !h);
      if (event.key !== "j" && event.key !== "k") return;
      setActive((current) => {
        const next = Math.max(0, Math.min(chunks.length - 1, current + (event.key === "j" ? 1 : -1)));
        const element = document.getElementById(`chunk-${next}`);
        element?.scrollIntoView({ block: "center" });
        element?.focus({ preventScroll: true });
        history.replaceState(null, "", `#chunk-${next}`);
        return next;
      });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [chunks.length]);

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
  const judges = t.judgements.map((j) => ({ runId: j.runId, name: j.judgeModel ?? j.runId, samples: j.samples }));

  return (
    <div className="space-y-4">
      <div>
        <SolutionNav datasetId={t.dataset.id} id={t.id} datasetName={t.dataset.name} />
        <h1 className="mt-1 font-mono text-xl font-semibold">{t.externalId}</h1>
        <p className="text-sm text-slate-600">
          {t.subset ?? "—"} · {t.generator} · final answer {t.finalAnswer ?? "—"}{" "}
          {t.finalAnswerCorrect === null ? "(not graded)" : t.finalAnswerCorrect ? "(correct)" : "(wrong)"}
        </p>
      </div>

      <section aria-labelledby="problem-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <h2 id="problem-heading" className="mb-2 text-sm font-semibold text-slate-600">
          Problem
        </h2>
        <RichText text={t.problem.text} mode={textMode} className="text-sm" />
        <p className="mt-2 text-sm">
          <span className="text-slate-500">Reference answer: </span>
          <span className="font-mono">{t.problem.referenceAnswer ?? "—"}</span>
          <span className="ml-4 text-slate-500">Source first error: </span>
          {firstError === null ? "unknown" : firstError < 0 ? <span>none (No error)</span> : <a href={`#chunk-${firstError}`} className="text-blue-700 hover:underline">chunk {firstError}</a>}
        </p>
      </section>

      <div className="flex flex-wrap items-center gap-3">
        {t.segmentations.length > 1 && (
          <select aria-label="Segmentation" className="rounded border border-slate-300 px-2 py-1 text-sm" value={segmentation?.id ?? ""} onChange={(e) => setSegmentationId(e.target.value)}>
            {t.segmentations.map((s) => (
              <option key={s.id} value={s.id}>
                {s.method}
              </option>
            ))}
          </select>
        )}
        {annotations.length > 1 && (
          <select aria-label="Annotation run" className="rounded border border-slate-300 px-2 py-1 text-sm" value={annotation?.runId ?? ""} onChange={(e) => setAnnotationRunId(e.target.value)}>
            {annotations.map((a) => (
              <option key={a.runId} value={a.runId}>
                {a.strategy} · M={a.rollouts} · {new Date(a.createdAt).toLocaleString()}
              </option>
            ))}
          </select>
        )}
        {annotation && <LabelSliders params={params} onChange={setParams} />}
        <RichTextModeToggle mode={textMode} onModeChange={setTextMode} />
        <button type="button" onClick={() => setHelp(!help)} className="text-xs text-slate-600 hover:underline">
          keyboard (?)
        </button>
      </div>
      {help && (
        <dl role="dialog" aria-label="Keyboard shortcuts" className="grid w-64 grid-cols-2 gap-1 rounded border border-slate-300 bg-white p-3 text-xs shadow">
          {HELP.map(([key, what]) => (
            <div key={key} className="contents">
              <dt className="font-mono">{key}</dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      )}
      {annotation && (
        <QCurve
          q0={annotation.values.find((v) => v.prefixLength === 0)?.qValue ?? null}
          q={chunks.map((c) => annotation.values.find((v) => v.prefixLength === c.index + 1)?.qValue ?? null)}
          gamma={params.gamma}
          relRatio={labels?.relRatio ?? null}
        />
      )}
      {rollouts && segmentation && <RolloutsPanel runId={rollouts.runId} segmentationId={segmentation.id} prefixLength={rollouts.prefixLength} onClose={() => setRollouts(null)} />}

      {chunks.length === 0 ? (
        <p className="text-sm text-slate-600">This solution has not been segmented yet.</p>
      ) : (
        <ol className="space-y-2" aria-label="Chunks">
          {chunks.map((chunk) => {
            const value = annotation?.values.find((v) => v.prefixLength === chunk.index + 1);
            return (
              <ChunkRow
                key={chunk.id}
                index={chunk.index}
                text={chunk.text}
                startOffset={chunk.startOffset}
                endOffset={chunk.endOffset}
                sourceFirstError={firstError !== null && firstError === chunk.index}
                afterSourceError={firstError !== null && firstError >= 0 && chunk.index > firstError}
                q={value ? { value: value.qValue, rollouts: value.rolloutCount, correct: value.correctCount } : null}
                labels={labels ? { absQ: labels.absQ[chunk.index], relRatio: labels.relRatio?.[chunk.index] ?? null, relEffective: labels.relEffective?.[chunk.index] ?? null } : null}
                judges={judges.map((j) => ({ ...j, samples: j.samples.filter((s) => s.chunkId === chunk.id).map((s) => ({ sampleIndex: s.sampleIndex, verdict: s.verdict as Verdict, rationale: s.rationale })) }))}
                active={active === chunk.index}
                textMode={textMode}
                onRollouts={annotation ? () => setRollouts({ runId: annotation.runId, prefixLength: chunk.index + 1 }) : undefined}
              />
            );
          })}
        </ol>
      )}
    </div>
  );
}
