import { requestRunCancel } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

/** Marks a queued or running run for cancellation (audited); any other run is refused as bad input. */
export async function cancelRun({ db, user, input }: ServiceArgs<{ id: string }>) {
  await requestRunCancel(db, input.id, user.id);
  return { ok: true };
}
