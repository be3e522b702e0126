import { tryReadRunConfig, type RunWithConfig, type StoredRun } from "./read-run-config";

/** The minute a run was created, as every run label shows it. */
export function runMinute(createdAt: Date): string {
  return `${createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const model = (snapshot: { model: string } | undefined, endpoint: string | undefined) => snapshot?.model ?? endpoint ?? null;

/** What tells runs of one kind apart, read from the config with its kind's defaults. */
function facts(run: RunWithConfig): string[] {
  switch (run.kind) {
    case "annotate": {
      const c = run.config;
      // adaptive draws up to maxRollouts per prefix, to a target confidence; M is not used.
      if (c.strategy === "adaptive") return [model(c.policy, c.policyEndpoint) ?? "policy", `M≤${c.maxRollouts}`, `adaptive to ${c.targetConfidence}`];
      return [model(c.policy, c.policyEndpoint) ?? "policy", `M=${c.rollouts}`, c.strategy];
    }
    case "judge": {
      const c = run.config;
      return [model(c.judge, c.judgeEndpoint) ?? "judge", `K=${c.samples}`];
    }
    case "benchmark": {
      const c = run.config;
      return [model(c.judge, c.judgeEndpoint) ?? "judge", ...(c.protocol === "stepwiser-chunk" ? [] : [c.protocol]), `K=${c.samples}`];
    }
    case "generate": {
      const c = run.config;
      return [model(c.policy, c.policyEndpoint) ?? "policy", `N=${c.samplesPerProblem}`];
    }
    case "segment": {
      const c = run.config;
      return [c.method, ...(c.segmenter ? [c.segmenter.model] : [])];
    }
    case "chunk_reset": {
      const c = run.config;
      return [model(c.policy, c.policyEndpoint) ?? "policy", `judge ${model(c.judge, c.judgeEndpoint) ?? "judge"}`, `attempts ${c.maxAttempts}`];
    }
    case "best_of_n": {
      const c = run.config;
      return [model(c.judge, c.judgeEndpoint) ?? "judge", `K=${c.samples}`];
    }
    case "import": {
      const c = run.config;
      return [c.format, c.fileName].filter((part) => part !== "");
    }
    case "export": {
      const c = run.config;
      return [c.export.kind];
    }
  }
}

/**
 * The name a run gets when its launcher gives none: `<kind> · <what sets it apart>`,
 * e.g. `judge · sim-judge-strong · K=3` or `annotate · Qwen2.5-7B · M=16 · fixed`. The facts
 * come from the typed reading of its config, so they show the defaults the run ran with.
 * A run whose config does not read is still named, by its id.
 */
export function defaultRunName(run: { kind: StoredRun["kind"]; config: unknown; id?: string }): string {
  const config = tryReadRunConfig({ id: run.id ?? "new", kind: run.kind, config: run.config });
  const parts = config === null ? [...(run.id ? [run.id] : []), "config unreadable"] : facts({ kind: run.kind, config } as RunWithConfig);
  return [run.kind.replaceAll("_", "-"), ...parts].join(" · ");
}

/** A run's name: the stored one, or for a run stored before runs had names, the generated one. */
export function runName(run: StoredRun & { name: string | null }): string {
  return run.name ?? defaultRunName(run);
}

/**
 * The one line naming a run in every picker, legend and table header: its name and
 * the minute it was created (names need not be unique), e.g.
 * `judge · sim-judge-strong · K=3 · 2026-01-01 00:00 UTC`.
 */
export function describeRun(run: StoredRun & { name: string | null; createdAt: Date }): string {
  return [runName(run), runMinute(run.createdAt)].join(" · ");
}
