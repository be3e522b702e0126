import { InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { EndpointPool, InferenceClient, SERVER_KIND_SETTINGS, type TransportTimeouts } from "@stepwiser/inference";
import { z } from "zod";
import type { SharedCapacity } from "./shared-capacity";

/** An endpoint as a run snapshots it: enough to reach it again without the Endpoint row (never its key). */
export const endpointSnapshotSchema = z.object({
  name: z.string(),
  model: z.string(),
  baseUrls: z.array(z.string()).min(1),
  maxConcurrency: z.number().int().min(1),
  /** Prices in USD per 1M tokens at launch (absent in snapshots taken before endpoints had prices). */
  promptPricePerMTokens: z.number().nullable().optional(),
  cachedPromptPricePerMTokens: z.number().nullable().optional(),
  completionPricePerMTokens: z.number().nullable().optional(),
  /** The judge protocols the endpoint declared at launch (absent in snapshots taken before endpoints declared them). */
  protocols: z.array(z.string()).optional(),
  /** The endpoint's server kind setting at launch (absent in snapshots taken before endpoints had one: "auto"). */
  serverKind: z.enum(SERVER_KIND_SETTINGS).optional(),
});
export type EndpointSnapshot = z.infer<typeof endpointSnapshotSchema>;

export interface EndpointClient {
  endpoint: EndpointSnapshot;
  client: InferenceClient;
}

/** Looks endpoints up by name, for a run's configuration snapshot; `field` is the configuration field that names it. */
export async function snapshotEndpoint(db: Db, name: string, field?: string): Promise<EndpointSnapshot> {
  const row = await db.endpoint.findUnique({
    where: { name },
    select: {
      name: true,
      model: true,
      baseUrls: true,
      maxConcurrency: true,
      promptPricePerMTokens: true,
      cachedPromptPricePerMTokens: true,
      completionPricePerMTokens: true,
      protocols: true,
      serverKind: true,
    },
  });
  if (!row) throw new InputError(`no endpoint named "${name}"`, { field });
  if (row.baseUrls.length === 0) throw new InputError(`endpoint "${name}" has no replica URL`, { field });
  const serverKind = endpointSnapshotSchema.shape.serverKind.safeParse(row.serverKind);
  if (!serverKind.success) {
    throw new InputError(`endpoint "${name}" has the unknown server kind "${row.serverKind}"; set one of ${SERVER_KIND_SETTINGS.join(", ")}`, { field });
  }
  return { ...row, serverKind: serverKind.data };
}

/**
 * One client per endpoint per process, shared by every run the process executes,
 * so replicas see one connection pool and one in-flight limit from this worker.
 */
export class EndpointClients {
  private readonly clients = new Map<string, EndpointClient>();

  /** Keys by endpoint name: never part of a run's snapshot, read from the Endpoint rows when a run starts. */
  private readonly apiKeys: Map<string, string>;

  constructor(
    private readonly options: {
      timeouts?: Partial<TransportTimeouts>;
      apiKeys?: Record<string, string>;
      /** Holds each endpoint's maxConcurrency across processes; without it the limit holds for this process only. */
      sharedCapacity?: SharedCapacity;
    } = {},
  ) {
    this.apiKeys = new Map(Object.entries(options.apiKeys ?? {}));
  }

  /** Picks up keys added or rotated since the last run; a changed key gets a fresh client. */
  async loadApiKeys(db: Db): Promise<void> {
    const rows = await db.endpoint.findMany({ select: { name: true, apiKey: true } });
    for (const { name, apiKey } of rows) {
      if (apiKey) this.apiKeys.set(name, apiKey);
      else this.apiKeys.delete(name);
    }
  }

  get(endpoint: EndpointSnapshot): EndpointClient {
    const apiKey = this.apiKeys.get(endpoint.name);
    const serverKind = endpoint.serverKind ?? "auto";
    const key = `${endpoint.name}|${endpoint.baseUrls.join(",")}|${endpoint.maxConcurrency}|${serverKind}|${apiKey ?? ""}`;
    let entry = this.clients.get(key);
    if (!entry) {
      const shared = this.options.sharedCapacity;
      const pool = new EndpointPool(
        endpoint.baseUrls.map((baseUrl) => ({ baseUrl, maxInFlight: endpoint.maxConcurrency, apiKey })),
        // Under a shared limit, slots come from the lease table: none until granted.
        { timeouts: this.options.timeouts, ...(shared ? { initialLimit: 0, onWait: () => shared.requestSlots() } : {}) },
      );
      shared?.register(endpoint.name, pool, endpoint.maxConcurrency);
      entry = { endpoint, client: new InferenceClient(pool, { serverKind }) };
      this.clients.set(key, entry);
    }
    return entry;
  }

  /** Every replica of every endpoint this process has used: requests in flight and waiting, slots held, the limit. */
  replicaStatus(): { endpoint: string; baseUrl: string; inFlight: number; limit: number; maxInFlight: number; waiting: number }[] {
    return [...this.clients.values()].flatMap(({ endpoint, client }) =>
      client.endpoints.status().map((r) => ({ endpoint: endpoint.name, baseUrl: r.baseUrl, inFlight: r.inFlight, limit: r.limit, maxInFlight: r.maxInFlight, waiting: client.endpoints.waiting })),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.client.endpoints.close()));
    this.clients.clear();
  }
}
