import { describeStoredLabelRule, labelRuleFromStored, type LabelRule } from "@stepwiser/core";
import type { ServiceContext } from "../args";
import { describeRun, type RunKind } from "@stepwiser/jobs";

/** Most recent runs offered per picker; older ones are still exportable by id (CLI, API). */
const SOURCE_RUNS = 100;

const LABEL_SOURCE_KINDS = ["annotate", "import"] as const satisfies readonly RunKind[];
const PREDICTION_SOURCE_KINDS = ["benchmark", "judge"] as const satisfies readonly RunKind[];

/**
 * Runs an export can read. Label sources: annotate runs, and import runs that
 * stored chunk labels (Math-Shepherd, JSONL with hard labels), each with the
 * (rule, parameters) pairs it holds and how many chunks each labels. They feed
 * training sets and labels exports. Prediction sources: benchmark and judge runs.
 */
export async function exportSources({ db }: ServiceContext) {
  const select = { id: true, kind: true, name: true, status: true, createdAt: true, config: true, datasetId: true, dataset: { select: { id: true, name: true } } } as const;
  const [labelRuns, predictionRuns] = await Promise.all([
    db.run.findMany({ where: { kind: { in: [...LABEL_SOURCE_KINDS] } }, orderBy: { createdAt: "desc" }, take: SOURCE_RUNS, select }),
    db.run.findMany({ where: { kind: { in: [...PREDICTION_SOURCE_KINDS] }, datasetId: { not: null } }, orderBy: { createdAt: "desc" }, take: SOURCE_RUNS, select }),
  ]);
  const groups = await db.chunkLabel.groupBy({
    by: ["runId", "rule", "paramsKey"],
    where: { runId: { in: labelRuns.map((r) => r.id) } },
    _count: { _all: true },
    orderBy: [{ runId: "asc" }, { rule: "asc" }, { paramsKey: "asc" }],
  });
  const rulesOf = new Map<string, Array<{ rule: LabelRule | null; storedRule: string; paramsKey: string; name: string; chunks: number }>>();
  for (const g of groups) {
    const list = rulesOf.get(g.runId) ?? [];
    list.push({ rule: labelRuleFromStored(g.rule, g.paramsKey), storedRule: g.rule, paramsKey: g.paramsKey, name: describeStoredLabelRule(g.rule, g.paramsKey), chunks: g._count._all });
    rulesOf.set(g.runId, list);
  }

  return {
    labelRuns: labelRuns
      // An annotate run still going has no labels yet but will; an import without labels never will.
      .filter((run) => run.kind === "annotate" || rulesOf.has(run.id))
      .map((run) => ({ id: run.id, kind: run.kind, status: run.status, createdAt: run.createdAt, dataset: run.dataset, name: describeRun(run), rules: rulesOf.get(run.id) ?? [] })),
    predictionRuns: predictionRuns.map((run) => ({
      id: run.id,
      kind: run.kind,
      status: run.status,
      createdAt: run.createdAt,
      dataset: run.dataset,
      name: describeRun(run),
    })),
  };
}
