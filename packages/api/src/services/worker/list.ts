import type { ServiceContext } from "../args";

/** A worker unseen for this long is shown as gone (it is counted live by runs within three heartbeats). */
const LIVE_WITHIN_SECONDS = 30;

/**
 * Viewer and up: the worker processes serving the job queues (newest heartbeat
 * first) with the endpoint slots each holds now; workers gone for a day are
 * swept by the workers themselves.
 */
export async function listWorkers({ db }: ServiceContext) {
  const [workers, leases] = await Promise.all([
    db.$queryRaw<{ id: string; hostname: string; pid: number; startedAt: Date; heartbeatAt: Date; activeRuns: number; live: boolean }[]>`
      SELECT id, hostname, pid, "startedAt", "heartbeatAt", "activeRuns",
             "heartbeatAt" > now() - make_interval(secs => ${LIVE_WITHIN_SECONDS}::float8) AS live
        FROM "WorkerProcess" ORDER BY "heartbeatAt" DESC LIMIT 500`,
    db.endpointCapacityLease.findMany({ select: { holderId: true, replicaKey: true, slots: true } }),
  ]);
  return workers.map((worker) => {
    const held = leases.filter((l) => l.holderId === worker.id);
    return { ...worker, slots: held.reduce((sum, l) => sum + l.slots, 0), replicasHeld: held.length };
  });
}
