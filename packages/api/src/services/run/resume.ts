import { resumeRun } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

/** Queues a cancelled or interrupted run again; its done units are kept. */
export async function resumeStoppedRun({ db, user, input, getQueue }: QueueServiceArgs<{ id: string }>) {
  await resumeRun(db, await getQueue(), input.id, user.id);
  return { ok: true };
}
