"use client";

import { describeStoredLabelRule, type StoredLabelRuleName } from "@stepwiser/core";
import { Card, Field, Select } from "~/components/ui";
import type { CompareParams } from "./compare-params";
import type { Candidates } from "./shared";

export interface StoredRule {
  rule: StoredLabelRuleName;
  paramsKey: string;
}

/** "abs-q(evidence=own-prefix)", "rel-ratio(gamma=0.7)": the rule with the parameters its labels used. */
export function ruleText(rule: StoredRule): string {
  return describeStoredLabelRule(rule.rule, rule.paramsKey);
}

const encodeRule = (rule: StoredRule) => `${rule.rule}:${rule.paramsKey}`;

/**
 * The judge run, annotate run (and its label rule) and annotation queue the
 * calibration and three-way views read, from the URL with sensible defaults:
 * the first selected run that judged chunks, the newest annotate run and its
 * first configured rule, all human labels.
 */
export function useReadingChoice(candidates: Candidates, runs: string[], params: CompareParams) {
  const judgeRuns = candidates.judgeRuns;
  const judge = judgeRuns.find((r) => r.id === params.get("judge"))?.id ?? runs.find((id) => judgeRuns.some((r) => r.id === id)) ?? judgeRuns[0]?.id;
  const annotateRun = candidates.annotateRuns.find((r) => r.id === params.get("annotate")) ?? candidates.annotateRuns[0];
  const rule = annotateRun?.rules.find((r) => encodeRule(r) === params.get("rule")) ?? annotateRun?.rules[0];
  const queue = candidates.queues.find((q) => q.id === params.get("queue"))?.id;
  return { judge, annotate: annotateRun?.id, rule: rule as StoredRule | undefined, rules: (annotateRun?.rules ?? []) as StoredRule[], queue };
}

export type ReadingChoice = ReturnType<typeof useReadingChoice>;

export function ReadingPickers({ candidates, choice, params, annotate = true, queue = true }: { candidates: Candidates; choice: ReadingChoice; params: CompareParams; annotate?: boolean; queue?: boolean }) {
  return (
    <Card padding="sm" className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-2 lg:grid-cols-4">
      <Field label="Judge run">
        <Select
          value={choice.judge ?? ""}
          data-testid="reading-judge-run"
          onChange={(e) => params.update({ judge: e.target.value || undefined, pcursor: undefined })}
          placeholder={candidates.judgeRuns.length === 0 ? "No run with judge samples" : undefined}
          options={candidates.judgeRuns.map((r) => [r.id, r.label] as const)}
        />
      </Field>
      {annotate && (
        <>
          <Field label="Annotate run (Monte-Carlo labels)">
            <Select
              value={choice.annotate ?? ""}
              data-testid="reading-annotate-run"
              onChange={(e) => params.update({ annotate: e.target.value || undefined, rule: undefined, pcursor: undefined })}
              placeholder={candidates.annotateRuns.length === 0 ? "No annotate run with labels" : undefined}
              options={candidates.annotateRuns.map((r) => [r.id, r.label] as const)}
            />
          </Field>
          <Field label="Label rule">
            <Select
              value={choice.rule ? encodeRule(choice.rule) : ""}
              data-testid="reading-rule"
              onChange={(e) => params.update({ rule: e.target.value || undefined, pcursor: undefined })}
              options={choice.rules.map((r) => [encodeRule(r), ruleText(r)] as const)}
            />
          </Field>
        </>
      )}
      {queue && (
        <Field label="Human labels from">
          <Select
            value={choice.queue ?? ""}
            data-testid="reading-queue"
            onChange={(e) => params.update({ queue: e.target.value || undefined, pcursor: undefined })}
            placeholder="Every queue and manual label"
            options={candidates.queues.map((q) => [q.id, `${q.name}${q.archivedAt ? " (archived)" : ""}`] as const)}
          />
        </Field>
      )}
    </Card>
  );
}
