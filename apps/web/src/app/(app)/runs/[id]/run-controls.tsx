"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, ErrorAlert } from "~/components/ui";
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
        <Button variant="danger" className="font-medium" disabled={cancel.isPending || cancelRequested} onClick={() => cancel.mutate({ id })}>
          {cancelRequested || cancel.isSuccess ? "Cancelling…" : "Cancel run"}
        </Button>
      )}
      {RESUMABLE.has(status) && (
        <Button variant="accent" className="font-medium" disabled={resume.isPending} onClick={() => resume.mutate({ id })}>
          Resume run
        </Button>
      )}
      {error && <ErrorAlert>{errorMessage(error)}</ErrorAlert>}
    </div>
  );
}
