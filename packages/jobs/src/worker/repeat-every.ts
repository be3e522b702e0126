export interface Repeating {
  /** Stops the turns and waits for one in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` (and at once with `now`), never two turns at
 * once; a failed turn is reported to `onError` and the next comes as usual.
 * The timer does not keep the process alive.
 */
export function repeatEvery(intervalMs: number, task: () => Promise<void>, onError: (error: unknown) => void, { now = false } = {}): Repeating {
  let current: Promise<void> = now ? task().catch(onError) : Promise.resolve();
  const timer = setInterval(() => {
    current = current.then(task).catch(onError);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
