import { pino, type DestinationStream, type LevelWithSilent, type Logger } from "pino";
import { prettyFactory } from "pino-pretty";

/*
 * The processes' logger: pino, one JSON object per line, or pretty-printed for a person at a terminal.
 * Imports nothing but pino and pino-pretty, so the web server (apps/web/server.ts), which Node runs as it
 * is, loads it directly (`@stepwiser/jobs/log`) as the worker does.
 *
 * Code logging for a job is handed a child logger (`logger.child({ runId, jobId })`), never a global one:
 * every line it writes carries the fields it was bound with.
 */

export type { Logger };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const satisfies readonly LevelWithSilent[];
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "json" | "pretty";

export interface LogSettings {
  /** STEPWISER_LOG_LEVEL: the least severe level written (default info; "silent" writes nothing). */
  level: LogLevel;
  /**
   * STEPWISER_LOG_FORMAT: "json" or "pretty". Unset: pretty when standard output is a terminal and
   * NODE_ENV is not "production", JSON otherwise.
   */
  format: LogFormat;
}

export function logSettingsFromEnv(env: NodeJS.ProcessEnv = process.env, stdoutIsTerminal = process.stdout.isTTY === true): LogSettings {
  const levelText = env.STEPWISER_LOG_LEVEL?.trim().toLowerCase() || "info";
  if (!(LOG_LEVELS as readonly string[]).includes(levelText)) {
    throw new Error(`STEPWISER_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.STEPWISER_LOG_LEVEL}"`);
  }
  const formatText = env.STEPWISER_LOG_FORMAT?.trim().toLowerCase() || "";
  if (formatText !== "" && formatText !== "json" && formatText !== "pretty") {
    throw new Error(`STEPWISER_LOG_FORMAT must be json or pretty, got "${env.STEPWISER_LOG_FORMAT}"`);
  }
  const format: LogFormat = formatText === "json" || formatText === "pretty" ? formatText : stdoutIsTerminal && env.NODE_ENV !== "production" ? "pretty" : "json";
  return { level: levelText as LogLevel, format };
}

/** Where lines go instead of standard output: a pino destination, or anything taking one line (JSON and "\n") at a time. */
export type LogDestination = DestinationStream | { write(line: string): void };

export interface LoggerOptions {
  /** The process or component: the `name` field of every line ("worker", "web"). */
  name: string;
  /**
   * Standard output by default, written through `process.stdout` (synchronous for files, terminals and pipes),
   * so a line logged just before the process exits is written, and whoever wraps standard output sees it.
   */
  destination?: LogDestination;
  /** Defaults to the environment (logSettingsFromEnv). */
  settings?: Partial<LogSettings>;
}

/** Primitive fields of an error worth a log line: codes and addresses, never the objects errors carry (a pg error's client). */
const ERROR_FIELDS = ["code", "errno", "syscall", "address", "port", "status", "kind", "severity", "detail", "hint", "table", "column", "constraint", "routine"] as const;

/**
 * An error as a log line holds it: its type, message and stack, its primitive codes, and its causes
 * (three deep). pino's own serializer copies every enumerable property, so a database error would
 * bring its whole client (connection parameters, queues, sockets) into the line.
 */
export function errorForLog(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const fields: Record<string, unknown> = { type: error.constructor.name || error.name, message: error.message, stack: error.stack };
  const record = error as unknown as Record<string, unknown>;
  for (const key of ERROR_FIELDS) {
    const value = record[key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[key] = value;
  }
  if (error.cause !== undefined && depth < 3) fields.cause = errorForLog(error.cause, depth + 1);
  return fields;
}

/**
 * A root logger. JSON lines hold `level` (its name: "info", "warn", …), `time` (ISO 8601, UTC), `pid`,
 * `hostname`, `name`, the fields bound by child loggers, `msg`, and `err` (type, message, stack) for errors.
 */
export function createLogger(options: LoggerOptions): Logger {
  const settings = { ...logSettingsFromEnv(), ...options.settings };
  const loggerOptions = {
    name: options.name,
    level: settings.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: errorForLog },
  };
  if (settings.format === "pretty") {
    // Formatted as each line is written (no stream in between), so a line logged just before the process exits is written too.
    const toTerminal = options.destination === undefined && process.stdout.isTTY === true;
    const format = prettyFactory({ colorize: toTerminal, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", singleLine: true });
    const destination = options.destination ?? process.stdout;
    return pino(loggerOptions, { write: (line: string) => destination.write(format(line)) });
  }
  return pino(loggerOptions, (options.destination as DestinationStream | undefined) ?? process.stdout);
}

/** A logger writing each JSON line, without its newline, to `write`: for callers that collect lines (tests, a CLI that keeps them). */
export function lineLogger(name: string, write: (line: string) => void, settings: Partial<LogSettings> = {}): Logger {
  return createLogger({ name, settings: { format: "json", ...settings }, destination: { write: (chunk: string) => write(chunk.replace(/\n$/, "")) } });
}

/**
 * A `(line) => void` callback for code that logs text lines (the run engine, the shared endpoint slots),
 * writing each at `level` on `logger`. A leading "[tag] " (those lines' old prefix) is dropped: the logger's
 * fields say where the line comes from.
 */
export function textLog(logger: Logger, level: "info" | "warn" | "error" = "warn"): (line: string) => void {
  return (line) => logger[level](line.replace(/^\[[^\]]*\]\s*/, ""));
}

/** The first line of an error's message, for a log line that must stay one line. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().split("\n")[0] ?? "";
}
