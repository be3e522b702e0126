import type { Db, RunKind } from "@stepwiser/db";
import type { TokenUsage } from "@stepwiser/inference";
import type { z } from "zod";
import type { EndpointClients } from "../inference/endpoint-clients";

export interface RunContext<Config> {
  db: Db;
  runId: string;
  config: Config;
  /** Fires when the run is cancelled: stop starting work and abort requests. */
  signal: AbortSignal;
  endpoints: EndpointClients;
  /** Adds a request's tokens to the run's live counters. */
  recordUsage(usage: TokenUsage, requests?: number): void;
  /** Completion tokens recorded by this executor and not yet added to the run's stored counters (0 where nothing is pending). */
  unflushedCompletionTokens?(): number;
  log(line: string): void;
}

/**
 * What a run kind supplies to the engine: how to validate and snapshot its
 * configuration, how to cut it into units, how to do one unit, and what to sum
 * up at the end. Every unit must be idempotent: redoing it after a crash must
 * leave exactly the rows one clean execution leaves.
 */
export interface RunKindHandler<Config> {
  kind: RunKind;
  configSchema: z.ZodType<Config>;
  /**
   * Resolves names in the submitted config into what the run needs to be
   * reproduced (endpoint URLs and models, prompt template ids); stored on the Run.
   */
  snapshot(db: Db, config: Config): Promise<Config>;
  /**
   * A new submission's check that the run would plan some work: throws an InputError naming
   * the field that selects nothing (a segmentation method no solution has, a filter that
   * matches none), so an empty run is refused rather than completed with a score over nothing.
   */
  refuseEmptyPlan?(db: Db, config: Config): Promise<void>;
  /** Dataset the run reads, for listing runs by dataset. */
  datasetId?(config: Config): string | undefined;
  /** Unit keys in plan order, streamed so a plan of 100k units never sits in memory. */
  plan(ctx: RunContext<Config>): AsyncIterable<string>;
  /** Does one unit; a returned value is stored as the unit's result. */
  runUnit(ctx: RunContext<Config>, key: string): Promise<unknown>;
  /** Runs once all units are done or failed; its value is stored as the run's summary. */
  summarize?(ctx: RunContext<Config>): Promise<unknown>;
  /** Runs when the run is cancelled, so what it wrote so far is left usable (it is not summarised). */
  stopped?(db: Db, runId: string, config: Config): Promise<void>;
  /** Runs when a planned run is executed again (resumed, or retried after a crash), undoing what `stopped` did. */
  resumed?(db: Db, runId: string, config: Config): Promise<void>;
  /** Units worked at once. */
  concurrency(config: Config): number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one registry holds every kind's handler; each parses its own config with its configSchema
export type AnyRunKindHandler = RunKindHandler<any>;
