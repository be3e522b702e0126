"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

type Queue = RouterOutputs["annotationQueue"]["queue"];
const field = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1";

/** Researchers change how the queue is worked; every change lands in the audit log with before and after. */
export function QueueSettings({ queue }: { queue: Queue }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const update = useMutation(trpc.annotationQueue.updateQueue.mutationOptions({ onSuccess: () => client.invalidateQueries({ queryKey: trpc.annotationQueue.queue.queryKey({ queueId: queue.id }) }) }));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    update.mutate({
      queueId: queue.id,
      instructions: String(form.get("instructions") ?? ""),
      annotatorsPerItem: Number(form.get("annotatorsPerItem")),
      leaseSeconds: Number(form.get("leaseMinutes")) * 60,
      blind: form.get("blind") === "on",
    });
  };
  return (
    <details className="rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
      <summary className="cursor-pointer font-semibold text-slate-700">Settings</summary>
      <form key={`${queue.annotatorsPerItem}-${queue.leaseSeconds}-${queue.blind}`} onSubmit={onSubmit} className="mt-3 space-y-3">
        <label className="block">
          <span className="text-slate-700">Instructions</span>
          <textarea name="instructions" rows={4} defaultValue={queue.instructions} className={field} />
        </label>
        <div className="grid gap-3 sm:grid-cols-3">
          <label>
            <span className="text-slate-700">Annotators per item (k)</span>
            <input name="annotatorsPerItem" type="number" min={1} max={10} defaultValue={queue.annotatorsPerItem} className={field} />
          </label>
          <label>
            <span className="text-slate-700">Lease (minutes)</span>
            <input name="leaseMinutes" type="number" min={1} max={1440} defaultValue={Math.max(1, Math.round(queue.leaseSeconds / 60))} className={field} />
          </label>
          <label className="flex items-center gap-2 self-end">
            <input name="blind" type="checkbox" defaultChecked={queue.blind} /> Blind
          </label>
        </div>
        {update.error && <ErrorAlert>{errorMessage(update.error)}</ErrorAlert>}
        <div className="flex gap-2">
          <button type="submit" disabled={update.isPending} className="rounded bg-blue-600 px-3 py-1.5 font-medium text-white disabled:opacity-50">
            Save
          </button>
          <button
            type="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ queueId: queue.id, archived: !queue.archivedAt })}
            className="rounded border border-slate-300 px-3 py-1.5"
          >
            {queue.archivedAt ? "Reopen the queue" : "Archive the queue"}
          </button>
        </div>
      </form>
    </details>
  );
}
