import { buildSelfSegmentingPolicyPrompt } from "@stepwiser/core";
import { sumServerMetric, type ChatMessage } from "../../src/client";
import { createSimModels, generateProblem, startSimCluster, type SimCluster, type SimClusterOptions } from "../../src/sim";

export async function startTestCluster(options: Omit<SimClusterOptions, "models">): Promise<SimCluster> {
  return startSimCluster({ models: createSimModels(), ...options });
}

/** The policy prompt for world problem `seed`, as chat messages. */
export function policyMessages(seed: number): ChatMessage[] {
  const problem = generateProblem(seed);
  return [{ role: "user", content: buildSelfSegmentingPolicyPrompt({ problem: problem.text }).text }];
}

/** Sums one metric over every replica's /metrics page. */
export const metricSum = sumServerMetric;
