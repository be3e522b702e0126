import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SimModel } from "../model";
import { CapacityScheduler } from "./capacity";
import { handleCompletionRequest, sendError, sendJson, type ReplicaContext } from "./completion-endpoint";
import { handlePoolingRequest } from "./pooling-endpoint";
import { parseSimReplicaConfig, type SimReplicaConfigInput } from "./config";
import { FaultInjector } from "./faults";
import { renderPrometheus, type SimReplicaMetrics } from "./metrics";
import { PrefixCache } from "./prefix-cache";

export interface SimReplicaOptions extends SimReplicaConfigInput {
  models: readonly SimModel[];
}

export interface SimReplica {
  /** The OpenAI base URL, e.g. http://127.0.0.1:8101/v1 */
  readonly url: string;
  /** e.g. http://127.0.0.1:8101 (for /health and /metrics). */
  readonly origin: string;
  readonly port: number;
  readonly modelIds: readonly string[];
  /** What /metrics reports, plus injected-fault counts. */
  metrics(): SimReplicaMetrics;
  /** Closes every connection (open streams and hung requests included) and the listener. */
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** One vLLM-like (or, with `dialect: "sglang"`, SGLang-like) OpenAI server on its own port, serving `models` with one replica's capacity. */
export async function startSimReplica(options: SimReplicaOptions): Promise<SimReplica> {
  const { models: modelList, ...configInput } = options;
  const config = parseSimReplicaConfig(configInput);
  const models = new Map<string, SimModel>();
  for (const model of modelList) {
    if (models.has(model.id)) throw new Error(`sim replica: model "${model.id}" is listed twice`);
    models.set(model.id, model);
  }
  const modelIds = [...models.keys()];
  const scheduler = new CapacityScheduler(config.capacity, config.timeScale, new PrefixCache(config.capacity.prefixCacheTokens), modelIds);
  const faults = new FaultInjector(config.faults, config.faults.seed + config.replicaIndex);
  const ctx: ReplicaContext = { models, scheduler, faults, capacity: config.capacity, dialect: config.dialect, reportCachedTokens: config.reportCachedTokens };
  const startedAt = Math.floor(Date.now() / 1000);
  let completionRequests = 0;
  // Completion requests from arrival until their connection's response ends: what a client's concurrency limit bounds.
  let openRequests = 0;
  let peakOpenRequests = 0;

  const metrics = (): SimReplicaMetrics => ({
    models: scheduler.metrics(),
    requests: completionRequests,
    openRequests,
    peakOpenRequests,
    faults: { ...faults.counts },
  });

  const modelList200 = () => ({
    object: "list",
    data: modelIds.map((id) => ({
      id,
      object: "model",
      created: startedAt,
      // What vLLM and SGLang write here, and what tells them apart (see the inference client's server kind).
      owned_by: config.dialect,
      root: id,
      parent: null,
      max_model_len: config.capacity.maxModelLen,
    })),
  });

  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? "/").split("?", 1)[0]!;
    if (config.apiKey && (path.startsWith("/v1/") || path === "/pooling") && req.headers.authorization !== `Bearer ${config.apiKey}`) {
      return sendJson(res, 401, { error: "Unauthorized" });
    }
    const completionKind = path === "/v1/chat/completions" ? "chat" : path === "/v1/completions" ? "completion" : null;
    if (completionKind) {
      if (req.method !== "POST") return sendJson(res, 405, { detail: "Method Not Allowed" });
      completionRequests++;
      openRequests++;
      peakOpenRequests = Math.max(peakOpenRequests, openRequests);
      res.once("close", () => openRequests--);
      readBody(req, res, (body) => handleCompletionRequest(ctx, completionKind, body, res));
      return;
    }
    if (path === "/pooling") {
      if (req.method !== "POST") return sendJson(res, 405, { detail: "Method Not Allowed" });
      completionRequests++;
      openRequests++;
      peakOpenRequests = Math.max(peakOpenRequests, openRequests);
      res.once("close", () => openRequests--);
      readBody(req, res, (body) => handlePoolingRequest(ctx, body, res));
      return;
    }
    const known = path === "/health" || path === "/v1/models" || path === "/metrics";
    if (known && req.method !== "GET") return sendJson(res, 405, { detail: "Method Not Allowed" });
    if (path === "/health") {
      res.writeHead(200, { "content-length": 0 });
      res.end();
    } else if (path === "/v1/models") {
      sendJson(res, 200, modelList200());
    } else if (path === "/metrics") {
      const text = renderPrometheus(metrics(), config.dialect);
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "content-length": Buffer.byteLength(text) });
      res.end(text);
    } else {
      sendJson(res, 404, { detail: "Not Found" });
    }
  };

  const server = createServer({ keepAliveTimeout: 65_000 }, route);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // A deep backlog: benchmarks open thousands of connections at once.
    server.listen({ host: config.host, port: config.port, backlog: 4096 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => process.stderr.write(`sim-server: ${error.message}\n`));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;

  let stopping: Promise<void> | undefined;
  return {
    url: `${origin}/v1`,
    origin,
    port,
    modelIds,
    metrics,
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        scheduler.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

function readBody(req: IncomingMessage, res: ServerResponse, onBody: (body: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on("data", (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      tooLarge = true;
      sendError(res, 413, "PayloadTooLargeError", `The request body exceeds ${MAX_BODY_BYTES} bytes.`, { connection: "close" });
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    if (!tooLarge) onBody(Buffer.concat(chunks).toString("utf8"));
  });
}
