import { firstLine, type Logger } from "../log/logger";

export interface Repeating {
  /** Stops the turns and waits for one in progress. */
  stop(): Promise<void>;
}

export interface RepeatOptions {
  /** Where a failed turn is reported: a warning with `failure` as its message and the error's first line as `error`. */
  logger: Logger;
  failure: string;
  /** Take the first turn at once instead of after one interval. */
  now?: boolean;
}

/**
 * Runs `task` every `intervalMs`, never two turns at once; a failed turn (the
 * database away for a moment) is logged and the next comes as usual. The timer
 * does not keep the process alive.
 */
export function repeatEvery(intervalMs: number, task: () => Promise<void>, options: RepeatOptions): Repeating {
  const onError = (error: unknown) => options.logger.warn({ error: firstLine(error) }, options.failure);
  let current: Promise<void> = options.now ? task().catch(onError) : Promise.resolve();
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
