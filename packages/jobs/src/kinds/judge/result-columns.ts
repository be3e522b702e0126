import { STORED_LABEL_RULE_VALUES, type TiePolicy } from "@stepwiser/core";
import { Prisma, type Db, type LabelRule as StoredRuleName } from "@stepwiser/db";
import { readSummary } from "../../runs/stored-config";
import type { RunResultColumns } from "../../runs/run-kind";
import { judgeSummarySchema } from "./summary";

/** What the runs list ranks a judge run by, from its summary: its Negative samples among the readable ones (null with none readable). */
export function judgeResultColumns(summary: unknown): Pick<RunResultColumns, "negativeShare"> {
  const read = readSummary(judgeSummarySchema, summary);
  const negative = read?.verdicts.Negative ?? 0;
  const readable = negative + (read?.verdicts.Positive ?? 0);
  return { negativeShare: readable > 0 ? negative / readable : null };
}

/** What of a judge run's config its agreement with Monte-Carlo labels depends on. */
export interface JudgeAgreementScope {
  datasetId: string;
  segmentationMethod: string;
  tiePolicy: TiePolicy;
}

/** A stored label rule: its spelling in the table and its parameters' key. */
interface StoredRule {
  rule: StoredRuleName;
  paramsKey: string;
}

/**
 * A judge run's agreement with Monte-Carlo labels, as the runs list ranks it: the
 * reference is the completed annotate run of the same dataset and segmentation
 * method that finished last (then the greatest id) among those with labels, under
 * its first label rule (`annotateFirstRule`, the rule its label balance is under);
 * the agreement is the share of the judge's chunk tallies that the reference
 * labelled whose majority verdict (the run's tie policy; no readable vote reads
 * unparseable) equals the label. Null, with no reference, when no annotate run
 * qualifies or none of its labels is on a judged chunk. A few index probes per
 * candidate and one aggregate in the database: no vote or label is read here.
 * Migration 20261204021832_judge_mc_agreement fills the columns in for judge
 * runs finished before, by the same definition in SQL.
 */
export async function judgeMcAgreement(db: Db, runId: string, scope: JudgeAgreementScope): Promise<Pick<RunResultColumns, "mcAgreement" | "mcAgreementRunId">> {
  const none = { mcAgreement: null, mcAgreementRunId: null };
  const candidates = await db.$queryRaw<{ id: string; config: unknown }[]>(Prisma.sql`
    SELECT id, config FROM "Run"
    WHERE kind = 'annotate' AND status = 'completed' AND "datasetId" = ${scope.datasetId} AND "finishedAt" IS NOT NULL
      AND COALESCE(config ->> 'segmentationMethod', 'self-segmented') = ${scope.segmentationMethod}
    ORDER BY "finishedAt" DESC, id DESC`);
  for (const candidate of candidates) {
    const rule = await annotateFirstRule(db, candidate.id, candidate.config);
    if (!rule) continue;
    const [row] = await db.$queryRaw<{ chunks: number; agreeing: number }[]>(Prisma.sql`
      SELECT count(*)::int AS chunks,
        count(*) FILTER (WHERE l.label::text = CASE
          WHEN v.positive = 0 AND v.negative = 0 THEN 'unparseable'
          WHEN v.positive > v.negative THEN 'Positive'
          WHEN v.negative > v.positive THEN 'Negative'
          ELSE ${scope.tiePolicy} END)::int AS agreeing
      FROM "ChunkVotes" v
      JOIN "ChunkLabel" l ON l."chunkId" = v."chunkId" AND l."runId" = ${candidate.id} AND l.rule = ${rule.rule}::"LabelRule" AND l."paramsKey" = ${rule.paramsKey}
      WHERE v."runId" = ${runId}`);
    if (!row || row.chunks === 0) return none;
    return { mcAgreement: row.agreeing / row.chunks, mcAgreementRunId: candidate.id };
  }
  return none;
}

/**
 * The stored rule an annotate run's first label rule is: the one its labels carry
 * that equals `labelRules[0]` of its stored config (rule spelled as stored,
 * parameters compared as JSON), or, where none of its labels has that rule, the
 * first rule it stored labels for (rule, then parameters key); null without labels.
 * The label balance the runs list shows for the run is under the same rule.
 */
export async function annotateFirstRule(db: Db, annotateRunId: string, config: unknown): Promise<StoredRule | null> {
  const first = configuredFirstRule(config);
  if (first) {
    const [match] = await db.$queryRaw<StoredRule[]>(Prisma.sql`
      SELECT rule, "paramsKey" FROM "ChunkLabel"
      WHERE "runId" = ${annotateRunId} AND rule = ${first.rule}::"LabelRule" AND "paramsKey"::jsonb = ${first.params}::jsonb
      LIMIT 1`);
    if (match) return match;
  }
  const [stored] = await db.$queryRaw<StoredRule[]>(Prisma.sql`
    SELECT rule, "paramsKey" FROM "ChunkLabel" WHERE "runId" = ${annotateRunId} ORDER BY rule, "paramsKey" LIMIT 1`);
  return stored ?? null;
}

/** `labelRules[0]` of a stored annotate config as stored labels spell it, or null where it names no rule labels can have. */
function configuredFirstRule(config: unknown): { rule: StoredRuleName; params: string } | null {
  const rules = typeof config === "object" && config !== null ? (config as { labelRules?: unknown }).labelRules : undefined;
  const first: unknown = Array.isArray(rules) ? rules[0] : undefined;
  if (typeof first !== "object" || first === null || Array.isArray(first)) return null;
  const { rule, ...params } = first as Record<string, unknown>;
  const stored = typeof rule === "string" ? rule.replaceAll("-", "_") : null;
  if (!stored || !(STORED_LABEL_RULE_VALUES as readonly string[]).includes(stored)) return null;
  return { rule: stored as StoredRuleName, params: JSON.stringify(params) };
}
