import { InputError } from "@stepwiser/core";
import { requestRunCancel } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

/** Marks a queued or running run for cancellation (audited); any other run is refused as bad input. */
export async function cancelRun({ db, user, input }: ServiceArgs<{ id: string }>) {
  await requestRunCancel(db, input.id, user.id);
  return { ok: true };
}

/**
 * Cancels every queued or running run of a selection, one by one as `cancelRun`
 * does (each audited as `run.cancel_requested`). Runs that cannot be cancelled
 * (ended, or unknown) do not stop the others: they come back as skipped with the reason.
 */
export async function cancelRuns({ db, user, input }: ServiceArgs<{ ids: string[] }>) {
  const cancelled: string[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const id of new Set(input.ids)) {
    try {
      await requestRunCancel(db, id, user.id);
      cancelled.push(id);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      skipped.push({ id, reason: error.reason });
    }
  }
  return { cancelled, skipped };
}
