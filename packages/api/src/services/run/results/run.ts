import type { Prisma } from "@stepwiser/db";

export const resultRunSelect = {
  id: true,
  kind: true,
  name: true,
  status: true,
  datasetId: true,
  createdAt: true,
  config: true,
  summary: true,
  requests: true,
  promptTokens: true,
  completionTokens: true,
} satisfies Prisma.RunSelect;

/** The run a result view is computed for: its configuration, stored summary and counters. */
export type ResultRun = Prisma.RunGetPayload<{ select: typeof resultRunSelect }>;
