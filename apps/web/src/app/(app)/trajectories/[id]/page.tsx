"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { ErrorAlert } from "~/components/alert";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";
import { ChunkList } from "./chunk-list";

export default function TrajectoryPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const trajectory = useQuery(trpc.trajectory.get.queryOptions({ id }));
  const [segmentationId, setSegmentationId] = useState<string | null>(null);

  if (trajectory.error) return <ErrorAlert>{errorMessage(trajectory.error)}</ErrorAlert>;
  if (!trajectory.data) return <p className="text-sm text-slate-500">Loading…</p>;
  const t = trajectory.data;
  const segmentation = t.segmentations.find((s) => s.id === segmentationId) ?? t.segmentations[0];

  return (
    <div className="space-y-5">
      <div>
        <Link href={`/datasets/${t.dataset.id}`} className="text-sm text-blue-700 hover:underline">
          ← {t.dataset.name}
        </Link>
        <h1 className="mt-1 font-mono text-xl font-semibold">{t.externalId}</h1>
        <p className="text-sm text-slate-600">
          {t.subset} · {t.generator} · final answer{" "}
          {t.finalAnswerCorrect === null ? "not graded" : t.finalAnswerCorrect ? "correct" : "wrong"}
        </p>
      </div>

      <div className="grid gap-5 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <section aria-labelledby="problem-heading" className="space-y-3">
          <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
            <h2 id="problem-heading" className="mb-2 text-sm font-semibold text-slate-600">
              Problem
            </h2>
            <p className="text-sm whitespace-pre-wrap">{t.problem.text}</p>
            {t.problem.referenceAnswer && (
              <p className="mt-3 text-sm">
                <span className="text-slate-500">Reference answer: </span>
                <span className="font-mono">{t.problem.referenceAnswer}</span>
              </p>
            )}
          </div>
          <div className="rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
            <h2 className="mb-2 font-semibold text-slate-600">Source label</h2>
            {t.sourceFirstErrorIndex === null ? (
              <p>This source gives no first-error label.</p>
            ) : t.sourceFirstErrorIndex < 0 ? (
              <p>No error: the source marks every step of this solution as correct.</p>
            ) : (
              <p>
                First error at{" "}
                <a href={`#chunk-${t.sourceFirstErrorIndex}`} className="text-blue-700 hover:underline">
                  step {t.sourceFirstErrorIndex}
                </a>{" "}
                (counting from 0).
              </p>
            )}
          </div>
        </section>

        <section aria-labelledby="chunks-heading" className="space-y-3">
          <div className="flex items-center gap-3">
            <h2 id="chunks-heading" className="text-sm font-semibold text-slate-600">
              Chunks
            </h2>
            {t.segmentations.length > 1 && (
              <select
                aria-label="Segmentation"
                className="rounded border border-slate-300 px-2 py-1 text-sm"
                value={segmentation?.id ?? ""}
                onChange={(e) => setSegmentationId(e.target.value)}
              >
                {t.segmentations.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.method}
                  </option>
                ))}
              </select>
            )}
            {segmentation && (
              <span className="text-xs text-slate-500">
                {segmentation.method} · {segmentation.chunks.length} chunks
              </span>
            )}
          </div>
          {segmentation ? (
            <ChunkList chunks={segmentation.chunks} firstErrorIndex={t.sourceFirstErrorIndex} />
          ) : (
            <p className="text-sm text-slate-600">This solution has not been segmented yet.</p>
          )}
        </section>
      </div>
    </div>
  );
}
