import { InputError, labelRuleKey, labelRuleParamsKey, type LabelRule } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { DB_RULE, exportSpecSchema, parseTrainingSetExportOptions, submitExport } from "@stepwiser/jobs";
import { z } from "zod";
import { researcherProcedure } from "../../trpc";
import { describeStoredRule } from "./stored-rules";

export const startExportInput = z.object({ spec: exportSpecSchema });

/**
 * Refuses at once what the export job would only find out later (a rule the
 * run stored no labels under, min above max, a run with nothing to export),
 * so the form shows the mistake instead of a failed run.
 */
async function checkSource(db: Db, spec: z.output<typeof exportSpecSchema>): Promise<void> {
  if (spec.kind === "predictions" || spec.kind === "batch-requests") return;
  const runId = spec.kind === "training-set" ? spec.annotateRunId : spec.runId;
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true } });
  if (!run) return; // submitExport names the missing run
  if (spec.kind === "training-set") {
    parseTrainingSetExportOptions(spec);
    await requireLabels(db, run, spec.labelRule);
    return;
  }
  const stored =
    (await db.chunkLabel.findFirst({ where: { runId }, select: { id: true } })) ?? (await db.chunkValue.findFirst({ where: { runId }, select: { id: true } }));
  if (!stored) throw new InputError(`run ${runId} (${run.kind}) has no chunk labels or Q-values to export`, { field: "runId" });
}

async function requireLabels(db: Db, run: { id: string; kind: string }, rule: LabelRule): Promise<void> {
  const found = await db.chunkLabel.findFirst({ where: { runId: run.id, rule: DB_RULE[rule.rule], paramsKey: labelRuleParamsKey(rule) }, select: { id: true } });
  if (found) return;
  const stored = await db.chunkLabel.groupBy({ by: ["rule", "paramsKey"], where: { runId: run.id }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }] });
  if (stored.length === 0) {
    throw new InputError(`run ${run.id} (${run.kind}) has no chunk labels; choose an annotate run, or an import run that stored labels`, { field: "annotateRunId" });
  }
  throw new InputError(`run ${run.id} has no labels under ${labelRuleKey(rule)}; it has: ${stored.map((s) => describeStoredRule(s.rule, s.paramsKey)).join(", ")}`, {
    field: "labelRule",
  });
}

/** Queues an export run; its files appear in `exports.list` once the worker has written them. */
export const start = researcherProcedure.input(startExportInput).mutation(async ({ ctx, input }) => {
  await checkSource(ctx.db, input.spec);
  const run = await submitExport(ctx.db, await ctx.getQueue(), { spec: input.spec, createdById: ctx.user.id });
  return { runId: run.id };
});
