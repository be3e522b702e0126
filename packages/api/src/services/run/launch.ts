import { InputError } from "@stepwiser/core";
import { BATCH_RUN_KINDS, createRun, submitRun } from "@stepwiser/jobs";
import type { QueueServiceArgs } from "../args";

export const LAUNCHABLE_RUN_KINDS = ["annotate", "generate", "segment", "judge", "benchmark", "chunk_reset", "best_of_n"] as const;
export type LaunchableRunKind = (typeof LAUNCHABLE_RUN_KINDS)[number];

export interface LaunchRequest {
  kind: LaunchableRunKind;
  /** Validated against the kind's own schema by the jobs layer; errors name the field. */
  config: Record<string, unknown>;
  /** Create the run without queueing it, to execute it offline through an OpenAI batch file (annotate and judge). */
  offline: boolean;
  /** The run's name; generated from kind, model and key parameters when absent. */
  name?: string;
  notes?: string;
  tags?: string[];
}

/** Creates a run of a launchable kind and queues it, or only creates it for offline execution. */
export async function launchRun({ db, user, input, getQueue }: QueueServiceArgs<LaunchRequest>): Promise<{ runId: string }> {
  const request = { kind: input.kind, config: input.config, name: input.name, notes: input.notes, tags: input.tags };
  if (input.offline) {
    if (!(BATCH_RUN_KINDS as readonly string[]).includes(input.kind)) {
      throw new InputError(`offline execution supports ${BATCH_RUN_KINDS.join(" and ")} runs, not ${input.kind}`);
    }
    const run = await createRun(db, { ...request, createdById: user.id });
    return { runId: run.id };
  }
  const run = await submitRun(db, await getQueue(), { ...request, createdById: user.id });
  return { runId: run.id };
}
