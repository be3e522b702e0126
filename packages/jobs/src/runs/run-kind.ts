import type { Db, EndpointRole, Prisma } from "@stepwiser/db";
import type { GenerationRequest, TokenUsage } from "@stepwiser/inference";
import type { z } from "zod";
import type { EndpointClients, EndpointSnapshot } from "../inference/endpoint-clients";
import type { JobQueue } from "../queue/queue";

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

/** What the launch form shows beside one field of a kind's configuration. */
export interface FieldHint {
  label: string;
  help: string;
  /** Not needed for a first run (seeds, concurrency, sampling limits, prompt template ids): the form folds it into its Advanced section. */
  advanced?: boolean;
}

/** An endpoint a run sends requests to, by the role it plays. */
export interface RunEndpoint {
  role: EndpointRole;
  endpoint: EndpointSnapshot;
}

/**
 * What every run kind is, whichever way it executes: the schemas its
 * configuration and summary are read by, and what lists and forms show of it.
 */
export interface RunKindCommon<Config, Summary> {
  /** Its name, as `Run.kind` stores it (the registry's key). */
  kind: string;
  /** A new submission's checks and defaults. */
  submitSchema: z.ZodType<Config>;
  /**
   * How a stored `Run.config` reads: defaults filled in, without the checks only a
   * new submission must pass, so a run stored by an earlier release still reads
   * (and resumes) as it was stored.
   */
  storedSchema: z.ZodType<Config>;
  /** How its `Run.summary` reads (JSON written by whichever release ran it). */
  summarySchema: z.ZodType<Summary>;
  /** Label and help per configuration field, for the launch form. */
  formHints: Readonly<Record<string, FieldHint>>;
  /** The endpoints its token counters cover, by role, in the order lists show their models. */
  endpoints(config: Config): RunEndpoint[];
  /** Short facts that tell runs of the kind apart (model, M, strategy), for a run's default name. */
  facts(config: Config): string[];
}

/**
 * One answered offline request's samples, as rows of the table the kind stores
 * them in (the same rows an online execution writes).
 */
export type BatchSampleRows = { table: "rollout"; rows: Prisma.RolloutCreateManyInput[] } | { table: "judgeSample"; rows: Prisma.JudgeSampleCreateManyInput[] };

/** One unit of a run as the import of an offline batch output needs it. */
export interface BatchUnit {
  /** How many positions (prefix lengths, chunks) the unit has. */
  positions: number;
  /** Whether `position` (below `positions`) is one of the unit's. */
  hasPosition(position: number): boolean;
  /** "position:sampleIndex" of every sample stored for the unit. */
  stored: Set<string>;
  /** The rows of one answered request: samples `sampleIndices` at `position`, with their texts and the request's tokens. */
  rows(position: number, sampleIndices: number[], answers: { text: string; finishReason: string | null }[], usage: TokenUsage): Promise<BatchSampleRows>;
}

/** One request of an offline batch: samples first..first+count-1 at a position of a unit. */
export interface BatchRequest {
  position: number;
  first: number;
  count: number;
  request: GenerationRequest;
}

/**
 * How a kind's requests are answered offline (`vllm run-batch`): the requests a
 * unit still needs, and how an answer is stored.
 */
export interface BatchHooks<Config> {
  /** What a position is in messages: "prefix length" / "prefix", "chunk" / "chunk". */
  position: { name: string; per: string };
  samplesPerPosition(config: Config): number;
  /** The requests the unit still needs (samples stored are not asked again); `skip` names a unit that cannot be worked. */
  requests(db: Db, runId: string, config: Config, unitKey: string, skip: (reason: string) => void): AsyncIterable<BatchRequest>;
  /** The unit as an import stores answers to it (within the import's transaction). */
  unit(tx: Prisma.TransactionClient, runId: string, config: Config, unitKey: string): Promise<BatchUnit>;
}

/**
 * A kind the engine executes unit by unit: how to snapshot its configuration,
 * how to cut it into units, how to do one unit, and what to sum up at the end.
 * Every unit must be idempotent: redoing it after a crash must leave exactly
 * the rows one clean execution leaves.
 */
export interface UnitRunKind<Config, Summary = unknown> extends RunKindCommon<Config, Summary>, RunKindHandler<Config> {
  execution: "units";
  /** Present when its requests may be answered offline. */
  batch?: BatchHooks<Config>;
}

/**
 * A kind executed whole by one job of its own queue, in one transaction (an
 * import writes a file all or nothing; an export writes its files at once).
 */
export interface WholeRunKind<Config, Summary = unknown> extends RunKindCommon<Config, Summary> {
  execution: "whole";
  /** The queue its jobs (`{ runId }`) wait in. */
  queue: "import" | "export";
  /** Executes the run; a retried job executes it again from the start. */
  execute(db: Db, runId: string, options: WholeRunOptions): Promise<void>;
}

/** What a worker gives a whole run's execution. */
export interface WholeRunOptions {
  /** Where the run may queue follow-up work (an offline batch's execution once its samples are stored). */
  queue: JobQueue;
  /** Records written per statement batch, where the kind writes in batches. */
  batchSize?: number;
  /** How it reads the other runs it works on. */
  runs: OtherRuns;
}

/**
 * How a whole run reads the other runs it works on (an export's source run, an
 * offline batch's run), each by its own kind: given from above the kinds, which
 * never import the registry.
 */
export interface OtherRuns {
  /** The unit kinds by name, for an offline batch's requests and answers. */
  unitKinds: UnitRunKinds;
  /** What a dataset card shows of the run an export comes from: its name, its seed, and how it ran. */
  provenance(run: { id: string; kind: string; name: string | null; config: unknown }): { name: string; seed: number | null; details: string[] };
  /** A segment run's segmentation method, as its stored config says (null when it does not read). */
  segmentMethod(run: { id: string; kind: "segment"; config: unknown }): string | null;
  /** What a judge run judged and how it voted, as its stored config says (null when it does not read). */
  judgeScope(run: { id: string; kind: "judge"; config: unknown }): JudgeRunScope | null;
}

/** The part of a judge run's config an export of its judgements needs. */
export interface JudgeRunScope {
  datasetId: string;
  segmentationMethod: string;
  solutionIds?: string[];
  tiePolicy: "Negative" | "Positive";
  protocol: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a map of every unit kind, each typed by its own schemas
export type AnyUnitRunKind = UnitRunKind<any, any>;

/** The kinds the engine executes unit by unit, by `Run.kind` (the registry's, or a test's with a toy kind). */
export type UnitRunKinds = ReadonlyMap<string, AnyUnitRunKind>;

export type RunKindModule<Config, Summary = unknown> = UnitRunKind<Config, Summary> | WholeRunKind<Config, Summary>;

/**
 * The columns of `Run` the runs list sorts finished runs by; each kind fills in
 * those it has, from its summary or what it wrote (docs/DATA_MODEL.md, Run).
 */
export interface RunResultColumns {
  averageF1?: number | null;
  prmscore?: number | null;
  negativeShare?: number | null;
  labelBalance?: number | null;
  meanConfidence?: number | null;
  /** A judge run's agreement with an annotate run's Monte-Carlo labels, and that annotate run (null together). */
  mcAgreement?: number | null;
  mcAgreementRunId?: string | null;
}

/** What the engine needs of a kind executed unit by unit. */
export interface RunKindHandler<Config> {
  kind: string;
  /** How the stored `Run.config` reads (see `RunKindCommon.storedSchema`). */
  storedSchema: z.ZodType<Config>;
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
  /**
   * The figures the runs list ranks the finished run by, stored with its summary (`summary` is what
   * `summarize` returned); a kind without any leaves them null.
   */
  resultColumns?(ctx: RunContext<Config>, summary: unknown): Promise<RunResultColumns>;
  /** Runs when the run is cancelled, so what it wrote so far is left usable (it is not summarised). */
  stopped?(db: Db, runId: string, config: Config): Promise<void>;
  /** Runs when a planned run is executed again (resumed, or retried after a crash), undoing what `stopped` did. */
  resumed?(db: Db, runId: string, config: Config): Promise<void>;
  /** Units worked at once. */
  concurrency(config: Config): number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one registry holds every kind's handler; each parses its own config with its storedSchema
export type AnyRunKindHandler = RunKindHandler<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above: the registry's entries, each typed by its own schemas
export type AnyRunKind = RunKindModule<any, any>;
