export { startSimCluster, type SimCluster, type SimClusterOptions } from "./cluster";
export { startSimReplica, type SimReplica, type SimReplicaOptions } from "./http-server";
export {
  capacityConfigSchema,
  clusterConfigSchema,
  faultConfigSchema,
  parseSimClusterConfig,
  parseSimReplicaConfig,
  replicaConfigSchema,
  type CapacityConfig,
  type FaultConfig,
  type SimClusterConfig,
  type SimClusterConfigInput,
  type SimReplicaConfig,
  type SimReplicaConfigInput,
} from "./config";
export type { SimFaultKind, SimModelMetrics, SimReplicaMetrics } from "./metrics";
export { renderChatPrompt } from "./chat-template";
export { PREFIX_BLOCK_TOKENS } from "./prefix-cache";
