import { createTestDatabase } from "@stepwiser/db/testing";
import { describe, expect, inject, it } from "vitest";
import { QUEUES, queueSettingsFromEnv, startJobQueue, type JobQueue } from "../src";

const WORKERS = 6;
const ROUNDS = 4;

describe("workers starting together on a new database", () => {
  // Several processes install pg-boss's schema and create the same queues at once (under pg-boss 10 two of
  // them could deadlock on its job table's partitions): every one of them must start.
  it(`${WORKERS} at once declare the queues, ${ROUNDS} times over, and every one of them starts`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const database = await createTestDatabase(inject("postgresAdminUrl"));
      const queues: JobQueue[] = [];
      try {
        const started = await Promise.allSettled(
          Array.from({ length: WORKERS }, async () => {
            const queue = await startJobQueue(database.url, queueSettingsFromEnv({}));
            queues.push(queue);
            return queue;
          }),
        );
        const failures = started.flatMap((s) => (s.status === "rejected" ? [String((s.reason as Error).message)] : []));
        expect(failures, `round ${round}`).toEqual([]);
        for (const name of Object.values(QUEUES)) expect(await queues[0]!.getQueue(name)).toMatchObject({ name });
      } finally {
        await Promise.all(queues.map((q) => q.stop({ graceful: false, wait: true })));
        await database.drop();
      }
    }
  });
});
