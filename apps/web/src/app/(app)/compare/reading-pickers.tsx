"use client";

import { describeStoredLabelRule, type StoredLabelRuleName } from "@stepwiser/core";
import type { CompareParams } from "./compare-params";
import type { Candidates } from "./shared";

export interface StoredRule {
  rule: StoredLabelRuleName;
  paramsKey: string;
}

const field = "mt-1 w-full rounded border border-slate-300 bg-white px-2 py-1";

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
    <div className="grid grid-cols-1 gap-3 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm sm:grid-cols-2 lg:grid-cols-4">
      <label className="min-w-0">
        <span className="block text-slate-600">Judge run</span>
        <select className={field} value={choice.judge ?? ""} data-testid="reading-judge-run" onChange={(e) => params.update({ judge: e.target.value || undefined, pcursor: undefined })}>
          {candidates.judgeRuns.length === 0 && <option value="">No run with judge samples</option>}
          {candidates.judgeRuns.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      {annotate && (
        <>
          <label className="min-w-0">
            <span className="block text-slate-600">Annotate run (Monte-Carlo labels)</span>
            <select className={field} value={choice.annotate ?? ""} data-testid="reading-annotate-run" onChange={(e) => params.update({ annotate: e.target.value || undefined, rule: undefined, pcursor: undefined })}>
              {candidates.annotateRuns.length === 0 && <option value="">No annotate run with labels</option>}
              {candidates.annotateRuns.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
          <label className="min-w-0">
            <span className="block text-slate-600">Label rule</span>
            <select className={field} value={choice.rule ? encodeRule(choice.rule) : ""} data-testid="reading-rule" onChange={(e) => params.update({ rule: e.target.value || undefined, pcursor: undefined })}>
              {choice.rules.map((r) => (
                <option key={encodeRule(r)} value={encodeRule(r)}>
                  {ruleText(r)}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      {queue && (
        <label className="min-w-0">
          <span className="block text-slate-600">Human labels from</span>
          <select className={field} value={choice.queue ?? ""} data-testid="reading-queue" onChange={(e) => params.update({ queue: e.target.value || undefined, pcursor: undefined })}>
            <option value="">Every queue and manual label</option>
            {candidates.queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
                {q.archivedAt ? " (archived)" : ""}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
