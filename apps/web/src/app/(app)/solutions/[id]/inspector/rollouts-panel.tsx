"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Button, Card, ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

/**
 * The rollouts behind one Q-value: each continuation, its answer and whether it was right. Shown under the
 * chunk it belongs to; it scrolls itself into view when it opens and again once the rollouts have arrived.
 */
export function RolloutsPanel(props: { runId: string; segmentationId: string; prefixLength: number; onClose: () => void }) {
  const trpc = useTRPC();
  const rollouts = useQuery(trpc.rollout.list.queryOptions({ runId: props.runId, segmentationId: props.segmentationId, prefixLength: props.prefixLength }));
  const panel = useRef<HTMLElement>(null);
  const loaded = rollouts.data !== undefined;
  useEffect(() => {
    panel.current?.scrollIntoView({ block: "nearest" });
  }, [loaded, props.prefixLength]);
  return (
    <Card as="section" ref={panel} aria-label="Rollouts" padding="sm" border="border-slate-300">
      <div className="mb-2 flex items-center justify-between">
        <h3 className="text-sm font-semibold">Rollouts after chunk {props.prefixLength - 1}</h3>
        <Button variant="subtle" className="text-xs" onClick={props.onClose}>
          close
        </Button>
      </div>
      {rollouts.error && <ErrorAlert>{errorMessage(rollouts.error)}</ErrorAlert>}
      <ol className="max-h-96 space-y-2 overflow-y-auto">
        {rollouts.data?.map((r) => (
          <li key={r.sampleIndex} className="rounded border border-slate-200 p-2 text-xs">
            <div className="mb-1 flex gap-2">
              <span className="font-mono">#{r.sampleIndex}</span>
              <span className="text-slate-500">seed {r.seed}</span>
              <span className={r.correct ? "text-green-700" : "text-red-700"}>{r.correct ? "correct" : "wrong"}</span>
              <span className="text-slate-500">answer: {r.extractedAnswer ?? "none"}</span>
            </div>
            {r.text === null ? (
              <p className="italic text-slate-500">Text not kept: this run stored its rollouts answer-only.</p>
            ) : (
              <p className="whitespace-pre-wrap text-slate-700">{r.text}</p>
            )}
          </li>
        ))}
      </ol>
    </Card>
  );
}
