import type { Db, Run } from "@stepwiser/db";
import { isTerminal } from "../src";

export async function waitForRun(db: Db, runId: string, timeoutMs = 60_000): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (isTerminal(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} (${run.unitsDone}/${run.unitsTotal}) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Row counts of every table an import writes, to prove a rejected import wrote nothing. */
export async function rowCounts(db: Db) {
  const [datasets, problems, solutions, segmentations, chunks, runs, storedFiles, auditLogs] = await Promise.all([
    db.dataset.count(),
    db.problem.count(),
    db.solution.count(),
    db.segmentation.count(),
    db.chunk.count(),
    db.run.count(),
    db.storedFile.count(),
    db.auditLog.count(),
  ]);
  return { datasets, problems, solutions, segmentations, chunks, runs, storedFiles, auditLogs };
}

/** Row counts of the data an import writes (not the run and file that record the attempt). */
export async function dataRowCounts(db: Db) {
  const [datasets, problems, solutions, segmentations, chunks, humanLabels, chunkLabels, chunkValues] = await Promise.all([
    db.dataset.count(),
    db.problem.count(),
    db.solution.count(),
    db.segmentation.count(),
    db.chunk.count(),
    db.humanLabel.count(),
    db.chunkLabel.count(),
    db.chunkValue.count(),
  ]);
  return { datasets, problems, solutions, segmentations, chunks, humanLabels, chunkLabels, chunkValues };
}

/** The JSON body of every completion request a recording proxy forwarded, in arrival order. */
export interface RecordingProxy {
  url: string;
  bodies: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of one server that records each POST body before forwarding it:
 * what a test reads to check the request shape a run sends (n, top_p, max_tokens, messages).
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const { createServer } = await import("node:http");
  const bodies: Array<Record<string, unknown>> = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const body = Buffer.concat(parts);
      if (request.method === "POST" && body.length > 0) bodies.push(JSON.parse(body.toString("utf8")) as Record<string, unknown>);
      const headers = { ...request.headers };
      delete headers.host;
      fetch(new URL(request.url ?? "/", target), { method: request.method, headers: headers as Record<string, string>, body: request.method === "POST" ? body : undefined })
        .then(async (answer) => {
          response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch((error: unknown) => {
          response.writeHead(502);
          response.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
