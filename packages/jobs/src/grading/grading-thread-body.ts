import { parentPort } from "node:worker_threads";
import { gradeAnswer, warmUpCas } from "@stepwiser/core";
import type { GradeRequest, GradeResponse } from "./grading-pool";

if (!parentPort) throw new Error("grading-thread-body must run in a worker thread");
const port = parentPort;

// The CAS reports some parse failures on the console; in a grading thread that
// text would land in the host's stdout (a JSON stream for the CLI). Send it to stderr.
for (const method of ["log", "info", "debug", "warn"] as const) {
  console[method] = (...args: unknown[]) => console.error(...args);
}
warmUpCas();

port.on("message", (request: GradeRequest) => {
  let response: GradeResponse;
  try {
    response = { id: request.id, result: gradeAnswer(request.gold, request.pred, request.options) };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(response);
});
port.postMessage({ ready: true });
