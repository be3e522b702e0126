import { InputError } from "@stepwiser/core";
import { BATCH_RUN_KINDS, createRun, prepareRun, submitRun } from "@stepwiser/jobs";
import type { QueueServiceArgs, ServiceArgs } from "../args";

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

function refuseOfflineKind(input: LaunchRequest): void {
  if (input.offline && !(BATCH_RUN_KINDS as readonly string[]).includes(input.kind)) {
    throw new InputError(`offline execution supports ${BATCH_RUN_KINDS.join(" and ")} runs, not ${input.kind}`);
  }
}

/** Creates a run of a launchable kind and queues it, or only creates it for offline execution. */
export async function launchRun({ db, user, input, getQueue }: QueueServiceArgs<LaunchRequest>): Promise<{ runId: string }> {
  const request = { kind: input.kind, config: input.config, name: input.name, notes: input.notes, tags: input.tags };
  refuseOfflineKind(input);
  if (input.offline) {
    const run = await createRun(db, { ...request, createdById: user.id });
    return { runId: run.id };
  }
  const run = await submitRun(db, await getQueue(), { ...request, createdById: user.id });
  return { runId: run.id };
}

/** What a launch of this request would say: nothing (it would be accepted), or its first refusal with the field it names. */
export type LaunchCheck = { valid: true } | { valid: false; field: string | null; message: string };

/**
 * Checks a launch request as `launchRun` would (the `run --dry-run` path, `prepareRun`: the kind's
 * schema, the endpoints and prompt templates it names, that it would plan some work), storing and
 * queueing nothing. A refusal is returned rather than thrown, so a form can show it beside its field.
 */
export async function checkLaunch({ db, input }: ServiceArgs<LaunchRequest>): Promise<LaunchCheck> {
  try {
    refuseOfflineKind(input);
    await prepareRun(db, { kind: input.kind, config: input.config, name: input.name, notes: input.notes, tags: input.tags });
    return { valid: true };
  } catch (error) {
    if (error instanceof InputError) return { valid: false, field: error.location.field ?? null, message: error.reason };
    throw error;
  }
}
