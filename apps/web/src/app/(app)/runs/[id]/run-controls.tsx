"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ErrorAlert } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useCan } from "~/lib/session-context";
import { useTRPC } from "~/trpc/react";

const CANCELLABLE = new Set(["queued", "running"]);
const RESUMABLE = new Set(["cancelled", "failed", "completed_with_failures"]);

/** Cancel a live run; resume a stopped one (its done units stay done, failed ones are retried). */
export function RunControls({ id, status, cancelRequested }: { id: string; status: string; cancelRequested: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canControl = useCan("research.manage");
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.run.pathKey() });
  const cancel = useMutation(trpc.run.cancel.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(trpc.run.resume.mutationOptions({ onSuccess: refresh }));
  if (!canControl) return null;
  const error = cancel.error ?? resume.error;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {CANCELLABLE.has(status) && (
        <button
          type="button"
          disabled={cancel.isPending || cancelRequested}
          onClick={() => cancel.mutate({ id })}
          className="rounded border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-700 hover:bg-red-50 disabled:opacity-50"
        >
          {cancelRequested || cancel.isSuccess ? "Cancelling…" : "Cancel run"}
        </button>
      )}
      {RESUMABLE.has(status) && (
        <button
          type="button"
          disabled={resume.isPending}
          onClick={() => resume.mutate({ id })}
          className="rounded border border-blue-300 bg-white px-3 py-1.5 text-sm font-medium text-blue-700 hover:bg-blue-50 disabled:opacity-50"
        >
          Resume run
        </button>
      )}
      {error && <ErrorAlert>{errorMessage(error)}</ErrorAlert>}
    </div>
  );
}
