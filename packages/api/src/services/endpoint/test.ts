import { NotFoundError } from "@stepwiser/core";
import { serverKindOfModelList, type ServerKind } from "@stepwiser/inference";
import { z } from "zod";
import type { ServiceArgs } from "../args";
import { probe, serverRootOf } from "./probe";

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

export interface ReplicaHealth {
  /** GET <server root>/health answered 2xx (vLLM, SGLang). Hosted APIs usually have no /health: `ok` false, `status` 404. */
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error?: string;
}

export interface ReplicaTest {
  baseUrl: string;
  /** GET <baseUrl>/models answered with an OpenAI model list. */
  ok: boolean;
  latencyMs: number;
  models: string[];
  /** The endpoint's model is among `models`. */
  servesModel: boolean;
  /** Who the server says it is (its model cards' `owned_by`); null when the model list did not read. */
  serverKind: ServerKind | null;
  error?: string;
  health: ReplicaHealth;
}

/**
 * Researcher and up (they are the ones about to launch runs on it): for each
 * replica of a saved endpoint, GET <baseUrl>/models with the stored key and
 * GET /health, from the server.
 */
export async function testEndpoint({ db, input }: ServiceArgs<{ id: string; timeoutMs: number }>) {
  const endpoint = await db.endpoint.findUnique({ where: { id: input.id }, select: { id: true, name: true, model: true, baseUrls: true, apiKey: true, serverKind: true } });
  if (!endpoint) throw new NotFoundError(`endpoint ${input.id} does not exist`);

  const replicas = await Promise.all(
    endpoint.baseUrls.map(async (baseUrl): Promise<ReplicaTest> => {
      const [models, health] = await Promise.all([
        probe(`${baseUrl.replace(/\/+$/, "")}/models`, { apiKey: endpoint.apiKey, timeoutMs: input.timeoutMs }),
        probe(`${serverRootOf(baseUrl)}/health`, { apiKey: endpoint.apiKey, timeoutMs: input.timeoutMs }),
      ]);
      const healthResult: ReplicaHealth = health.ok
        ? { ok: true, status: health.status, latencyMs: health.latencyMs }
        : { ok: false, status: health.status, latencyMs: health.latencyMs, error: health.error };
      if (!models.ok) return { baseUrl, ok: false, latencyMs: models.latencyMs, models: [], servesModel: false, serverKind: null, error: models.error, health: healthResult };
      const body = safeJson(models.body);
      const parsed = modelListSchema.safeParse(body);
      if (!parsed.success) {
        return { baseUrl, ok: false, latencyMs: models.latencyMs, models: [], servesModel: false, serverKind: null, error: "the answer is not an OpenAI-compatible model list", health: healthResult };
      }
      const served = parsed.data.data.map((m) => m.id);
      const servesModel = served.includes(endpoint.model);
      return {
        baseUrl,
        ok: true,
        latencyMs: models.latencyMs,
        models: served,
        servesModel,
        serverKind: serverKindOfModelList(body),
        ...(servesModel ? {} : { error: `does not serve "${endpoint.model}"` }),
        health: healthResult,
      };
    }),
  );
  return {
    id: endpoint.id,
    name: endpoint.name,
    model: endpoint.model,
    /** The endpoint's setting ("auto": the client asks the server, as `replicas[].serverKind` shows). */
    serverKind: endpoint.serverKind,
    /** Every replica answered and serves the model. */
    ok: replicas.every((r) => r.ok && r.servesModel),
    checkedAt: new Date(),
    replicas,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
