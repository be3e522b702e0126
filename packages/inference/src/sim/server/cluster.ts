import type { SimModel } from "../model";
import { parseSimClusterConfig, type SimClusterConfig, type SimClusterConfigInput } from "./config";
import { startSimReplica, type SimReplica } from "./http-server";

export interface SimClusterOptions extends SimClusterConfigInput {
  models: readonly SimModel[];
}

export interface SimCluster {
  readonly replicas: readonly SimReplica[];
  /** The replicas' OpenAI base URLs (…/v1), in replica order. */
  readonly urls: readonly string[];
  readonly config: SimClusterConfig;
  stop(): Promise<void>;
}

/**
 * Several independent replicas serving the same models, each on its own port
 * (consecutive from basePort when given), like a vLLM deployment with one
 * server per GPU and no shared state: each has its own queue and prefix cache.
 */
export async function startSimCluster(options: SimClusterOptions): Promise<SimCluster> {
  const { models, ...configInput } = options;
  const config = parseSimClusterConfig(configInput);
  const { replicas: count, basePort, ...replicaConfig } = config;
  const replicas: SimReplica[] = [];
  try {
    for (let i = 0; i < count; i++) {
      replicas.push(await startSimReplica({ ...replicaConfig, models, port: basePort === undefined ? 0 : basePort + i, replicaIndex: i }));
    }
  } catch (error) {
    await Promise.all(replicas.map((r) => r.stop()));
    throw error;
  }
  return {
    replicas,
    urls: replicas.map((r) => r.url),
    config,
    stop: async () => {
      await Promise.all(replicas.map((r) => r.stop()));
    },
  };
}
