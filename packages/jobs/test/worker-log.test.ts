import { describe, expect, it } from "vitest";
import { jobLogger } from "../src";
import { createLogger, lineLogger, logSettingsFromEnv, textLog } from "../src/log/logger";

/** A worker's logger as startWorker makes it from a line callback: bound with the worker's id. */
function workerLogger(settings: Parameters<typeof lineLogger>[2] = {}) {
  const lines: string[] = [];
  const logger = lineLogger("worker", (line) => lines.push(line), settings).child({ workerId: "log-worker" });
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, entries };
}

describe("the worker's logs", () => {
  it("a job's line is one JSON object with its level, message, run, job and worker", () => {
    const { logger, lines, entries } = workerLogger();
    const log = jobLogger(logger, { runId: "run-1", jobId: "job-1", queue: "run", executorId: "log-worker/job-1" });
    log.info("run started");
    textLog(log)("[run run-1] unit u7 will be retried: HTTP 503");
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => !line.includes("\n"))).toBe(true);
    const [started, retried] = entries();
    expect(started).toMatchObject({ level: "info", msg: "run started", name: "worker", workerId: "log-worker", runId: "run-1", jobId: "job-1", queue: "run" });
    expect(started!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(started!.pid).toBe(process.pid);
    // A text line of the run engine: its old "[run …]" prefix is dropped, the fields say which run.
    expect(retried).toMatchObject({ level: "warn", msg: "unit u7 will be retried: HTTP 503", runId: "run-1", jobId: "job-1" });
  });

  it("a run found while looking for work has no job id; errors carry their type, message and stack", () => {
    const { logger, entries } = workerLogger();
    jobLogger(logger, { runId: "run-2", jobId: undefined, queue: "run" }).error({ err: new TypeError("no such unit") }, "run stopped");
    const [entry] = entries();
    expect(entry).toMatchObject({ level: "error", msg: "run stopped", runId: "run-2", err: { type: "TypeError", message: "no such unit" } });
    expect(entry).not.toHaveProperty("jobId");
    expect((entry!.err as { stack: string }).stack).toContain("worker-log.test.ts");
  });

  it("an error's line keeps its codes and causes, never the objects it carries (a database error's client)", () => {
    const lines: string[] = [];
    const logger = lineLogger("worker", (line) => lines.push(line));
    const failure = Object.assign(new Error("terminating connection due to administrator command", { cause: new Error("socket closed") }), {
      code: "57P01",
      severity: "FATAL",
      client: { connectionParameters: { user: "stepwiser", password: "hunter2-secret" }, queue: [1, 2, 3] },
    });
    logger.error({ err: failure }, "queue: connection lost");
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    expect(entry.err).toMatchObject({ type: "Error", code: "57P01", severity: "FATAL", cause: { type: "Error", message: "socket closed" } });
    expect(entry.err).not.toHaveProperty("client");
    expect(lines[0]).not.toContain("hunter2-secret");
  });

  it("writes only from its level up", () => {
    const { logger, entries } = workerLogger({ level: "warn" });
    logger.debug("not written");
    logger.info("not written either");
    logger.warn("written");
    expect(entries().map((entry) => entry.msg)).toEqual(["written"]);
  });

  it("reads its level and format from the environment: pretty at a terminal outside production, JSON otherwise", () => {
    expect(logSettingsFromEnv({}, false)).toEqual({ level: "info", format: "json" });
    expect(logSettingsFromEnv({}, true)).toEqual({ level: "info", format: "pretty" });
    expect(logSettingsFromEnv({ NODE_ENV: "production" }, true).format).toBe("json");
    expect(logSettingsFromEnv({ STEPWISER_LOG_FORMAT: "json" }, true).format).toBe("json");
    expect(logSettingsFromEnv({ STEPWISER_LOG_FORMAT: "pretty", NODE_ENV: "production" }, false).format).toBe("pretty");
    expect(logSettingsFromEnv({ STEPWISER_LOG_LEVEL: " DEBUG " }, false).level).toBe("debug");
    expect(() => logSettingsFromEnv({ STEPWISER_LOG_LEVEL: "verbose" }, false)).toThrow(/STEPWISER_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/);
    expect(() => logSettingsFromEnv({ STEPWISER_LOG_FORMAT: "text" }, false)).toThrow(/STEPWISER_LOG_FORMAT must be json or pretty/);
  });

  it("pretty-prints a line for a person: time, level, name, message and the bound fields on one line", () => {
    const written: string[] = [];
    const logger = createLogger({ name: "worker", settings: { format: "pretty", level: "info" }, destination: { write: (text: string) => written.push(text) } });
    jobLogger(logger.child({ workerId: "log-worker" }), { runId: "run-3", jobId: "job-3", queue: "run" }).info("run done");
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(worker\): run done \{.*"runId":"run-3".*\}\n$/);
    expect(written[0]).toContain('"jobId":"job-3"');
    expect(() => JSON.parse(written[0]!)).toThrow();
  });
});
