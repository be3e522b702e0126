import type { WorkerSettings } from "@stepwiser/jobs";

/**
 * Settings of the worker a command runs in its own process to work its job:
 * it does not look for other runs to join and takes one run job at a time, so
 * a command whose job is done rarely waits on someone else's run to exit.
 */
export const IN_COMMAND_WORKER: Partial<WorkerSettings> = { runJoinSeconds: 0, runJobsPerWorker: 1 };
