import "server-only";
import { getAuth, type ContextDeps } from "@stepwiser/api";
import { getDb } from "@stepwiser/db";
import { connectJobQueue, type JobQueue } from "@stepwiser/jobs";

const globalForQueue = globalThis as { stepwiserQueue?: Promise<JobQueue> };

/** The web process's shared handles: one Prisma pool, one auth instance, one queue sender. */
export function serverDeps(): ContextDeps {
  return {
    db: getDb(),
    auth: getAuth(),
    getQueue: () => {
      const url = process.env.DATABASE_URL;
      if (!url) throw new Error("DATABASE_URL is not set");
      globalForQueue.stepwiserQueue ??= connectJobQueue(url).catch((error: unknown) => {
        globalForQueue.stepwiserQueue = undefined; // let the next request try again
        throw error;
      });
      return globalForQueue.stepwiserQueue;
    },
  };
}
