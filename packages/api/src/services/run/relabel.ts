import type { LabelRule } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import { relabelAnnotateRun } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";

/** New label parameters for a finished annotate run, from its stored Q-values: no request is sent. */
export async function relabelRun({ db, user, input }: ServiceArgs<{ id: string; rules: LabelRule[] }>) {
  const result = await relabelAnnotateRun(db, input.id, input.rules);
  await recordAudit(db, user.id, { action: "run.relabelled", entityType: "Run", entityId: input.id, after: { rules: result.rules } });
  return result;
}
