import { hostname } from "node:os";
import type { Db } from "@stepwiser/db";
import { firstLine, type Logger } from "../log/logger";

/** A worker is presumed gone when it has not been seen for this many heartbeats. */
const MISSED_HEARTBEATS = 3;
/** Rows of workers gone this long are deleted (their history is in the job queue and the runs). */
const FORGET_AFTER_HOURS = 24;

/**
 * The worker's row in `WorkerProcess`, renewed every `heartbeatSeconds`: it
 * shows operators (and the Endpoints page) which processes are serving.
 */
export class WorkerRegistration {
  private timer: NodeJS.Timeout | undefined;
  activeRuns = 0;

  constructor(
    private readonly db: Db,
    readonly workerId: string,
    private readonly heartbeatSeconds: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.db.workerProcess.upsert({
      where: { id: this.workerId },
      create: { id: this.workerId, hostname: hostname(), pid: process.pid },
      update: { heartbeatAt: new Date() },
    });
    await this.db.$executeRaw`DELETE FROM "WorkerProcess" WHERE "heartbeatAt" < now() - make_interval(hours => ${FORGET_AFTER_HOURS}::int)`;
    this.timer = setInterval(() => {
      this.db.$executeRaw`UPDATE "WorkerProcess" SET "heartbeatAt" = now(), "activeRuns" = ${this.activeRuns} WHERE id = ${this.workerId}`.catch(
        (error: unknown) => this.logger.warn({ error: firstLine(error) }, "heartbeat not written"),
      );
    }, this.heartbeatSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.db.workerProcess.deleteMany({ where: { id: this.workerId } });
  }
}

/** Workers seen within the last few heartbeats. */
export async function liveWorkerCount(db: Db, heartbeatSeconds: number): Promise<number> {
  const [row] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM "WorkerProcess" WHERE "heartbeatAt" > now() - make_interval(secs => ${heartbeatSeconds * MISSED_HEARTBEATS}::float8)`;
  return Number(row?.n ?? 0);
}
