import { InputError, NotFoundError, runNameSchema, runNotesSchema, runTagsSchema } from "@stepwiser/core";
import { recordAudit, type AuditRunDescription } from "@stepwiser/db";
import { defaultRunName } from "@stepwiser/jobs";
import { z } from "zod";
import type { ServiceArgs } from "../args";

export interface RunDescriptionUpdate {
  id: string;
  /** A new name; null goes back to the generated one. */
  name?: string | null;
  notes?: string;
  tags?: string[];
}

const updateSchema = z.object({ name: runNameSchema.nullable().optional(), notes: runNotesSchema.optional(), tags: runTagsSchema.optional() });

/**
 * Changes a run's name, notes or tags (any run, in any state: they describe the run,
 * not what it computes). Audited with the changed fields before and after.
 */
export async function updateRunDescription({ db, user, input }: ServiceArgs<RunDescriptionUpdate>) {
  const parsed = updateSchema.safeParse({ name: input.name, notes: input.notes, tags: input.tags });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { field: issue.path.map(String).join(".") });
  }
  const next = parsed.data;
  return db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: input.id }, select: { id: true, kind: true, config: true, name: true, notes: true, tags: true } });
    if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
    const before: AuditRunDescription = {};
    const after: AuditRunDescription = {};
    const data: { name?: string; notes?: string; tags?: string[] } = {};
    if (next.name !== undefined) {
      const name = next.name ?? defaultRunName(run);
      if (name !== run.name) {
        before.name = run.name;
        after.name = data.name = name;
      }
    }
    if (next.notes !== undefined && next.notes !== run.notes) {
      before.notes = run.notes;
      after.notes = data.notes = next.notes;
    }
    if (next.tags !== undefined && next.tags.join("\u0000") !== run.tags.join("\u0000")) {
      before.tags = run.tags;
      after.tags = data.tags = next.tags;
    }
    if (Object.keys(data).length === 0) return { id: run.id, changed: [] as string[] };
    await tx.run.update({ where: { id: run.id }, data });
    await recordAudit(tx, user.id, { action: "run.updated", entityType: "Run", entityId: run.id, before, after });
    return { id: run.id, changed: Object.keys(data) };
  });
}
