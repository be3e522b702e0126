import { createLogger, type Logger } from "@stepwiser/jobs/log";

let logger: Logger | undefined;

/**
 * The API's log, the processes' pino logger (`@stepwiser/jobs/log`): failures a
 * request met that its client is not shown, one JSON line each with the error's
 * type, message and stack under `err`.
 */
export function apiLog(): Logger {
  return (logger ??= createLogger({ name: "api" }));
}
