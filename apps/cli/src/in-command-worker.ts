import type { WorkerSettings } from "@stepwiser/jobs";

/**
 * Settings of the worker a command runs in its own process to work its job:
 * it does not look for other runs to join, or a command whose job is done
 * would wait on someone else's run before it could exit.
 */
export const IN_COMMAND_WORKER: Partial<WorkerSettings> = { runJoinSeconds: 0 };
