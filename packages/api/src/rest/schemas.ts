import { STORED_LABEL_RULE_VALUES } from "@stepwiser/core";
import { DatasetStatus, EndpointRole, RunStatus, StepLabel, Verdict } from "@stepwiser/db";
import { RUN_KIND_NAMES } from "@stepwiser/jobs";
import { z } from "zod";
import { launchRunInput } from "../routers/run/launch";

/*
 * The representations the REST API answers with, as zod schemas. They are not
 * applied to what the services return (the services' objects are serialized as
 * they are: dates as ISO 8601 strings, token counts as numbers); they describe
 * it, for the OpenAPI document, and the tests check every answer against them.
 */

const id = z.string().min(1);
const dateTime = z.iso.datetime().describe("ISO 8601 date and time, UTC");
const count = z.number().int().min(0);

export const errorSchema = z
  .object({
    error: z.object({
      code: z
        .enum(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "METHOD_NOT_SUPPORTED", "CONFLICT", "PAYLOAD_TOO_LARGE", "TOO_MANY_REQUESTS", "INTERNAL_SERVER_ERROR", "SERVICE_UNAVAILABLE"])
        .describe("The kind of refusal; the HTTP status says the same"),
      message: z.string().describe("What is wrong, in words a person reads"),
      field: z.string().optional().describe('Where in the input, when one field is wrong: a path parameter, query parameter or body field, dotted (e.g. "config.samples")'),
    }),
  })
  .meta({ description: "Every refusal and failure answers with this body." });

export const runSchema = z
  .looseObject({
    id,
    kind: z.enum(RUN_KIND_NAMES),
    status: z.enum(RunStatus),
    datasetId: id.nullable(),
    name: z.string().describe('What researchers call the run: set at launch or generated from kind, model and key parameters, e.g. "judge · sim-judge-strong · K=3"; not unique'),
    notes: z.string().describe("Markdown notes (untrusted text: render it safely)"),
    tags: z.array(z.string()),
    label: z.string().describe("The run's one line in pickers: its name and the minute it was created"),
    unitsTotal: count,
    unitsDone: count,
    unitsFailed: count,
    requests: count,
    promptTokens: count.describe("Stored as a 64-bit integer; sent as a JSON number (exact below 2^53)"),
    completionTokens: count.describe("Stored as a 64-bit integer; sent as a JSON number (exact below 2^53)"),
    cachedTokens: count.describe("Stored as a 64-bit integer; sent as a JSON number (exact below 2^53)"),
    attempts: count,
    error: z.string().nullable(),
    cancelRequestedAt: dateTime.nullable(),
    createdAt: dateTime,
    startedAt: dateTime.nullable(),
    finishedAt: dateTime.nullable(),
    progress: z.number().min(0).describe("unitsDone / unitsTotal (0 before planning)"),
    etaSeconds: count.nullable().describe("Seconds left at the pace so far; null until a unit is done or once the run has ended"),
  })
  .meta({ description: "A run with its progress and counters. Fields the run service adds later pass through unchanged." });

export const runDetailSchema = runSchema
  .extend({
    config: z.record(z.string(), z.unknown()).describe("The run's configuration snapshot, as stored at launch"),
    summary: z.unknown().describe("Kind-specific results written when the run ends (null before)"),
  })
  .meta({ description: "One run: the list's fields, its configuration snapshot and its summary." });

/** A run as the list gives it: also its dataset, creator, models and cost. */
export const runListItemSchema = runSchema
  .extend({
    dataset: z.object({ id, name: z.string() }).nullable(),
    createdBy: z.object({ id, name: z.string(), email: z.string() }).nullable().describe("Who launched it; null for runs made by the system (demo data, imports of other runs)"),
    models: z.array(z.object({ role: z.enum(EndpointRole), model: z.string() })).describe("The model of each endpoint the run sends requests to, from its config snapshot"),
    cost: z
      .object({ usd: z.number().min(0).nullable(), reason: z.string().nullable() })
      .describe("Cost in USD at the endpoint prices snapshotted at launch; null with the reason when it is not defined (no prices, or tokens of several endpoints counted together)"),
  })
  .meta({ description: "A run in a list: its fields, dataset, creator, models and cost." });

export const runPageSchema = z.object({
  items: z.array(runListItemSchema),
  total: count.describe("Runs matching the filters"),
  limit: count,
  offset: count,
  nextOffset: count.nullable().describe("The offset of the next page; null on the last page"),
});

/** The tRPC launch input, refusing unknown fields: a field added there is accepted here too. */
export const launchRequestSchema = z.strictObject(launchRunInput.shape).meta({ description: "A run to create and queue." });

export const datasetSchema = z.object({
  id,
  name: z.string(),
  source: z.string(),
  license: z.string().nullable(),
  version: z.string().nullable(),
  status: z.enum(DatasetStatus),
  createdAt: dateTime,
  importRunId: id.nullable(),
  solutionCount: count.describe("Solutions in the dataset"),
  problemCount: count,
});

export const datasetListSchema = z.object({ items: z.array(datasetSchema) });

export const solutionRowSchema = z.object({
  id,
  externalId: z.string(),
  subset: z.string().nullable(),
  generator: z.string(),
  finalAnswerCorrect: z.boolean().nullable(),
  sourceFirstErrorIndex: z.number().int().nullable().describe("First erroneous chunk according to the source; -1 no error; null unknown"),
  qMin: z.number().nullable().describe("Lowest chunk Q-value under annotateRunId"),
  annotateFirstNegative: z.number().int().nullable(),
  labelsDisagree: z.boolean().nullable(),
  judgeFirstNegative: z.number().int().nullable().describe("First chunk judgeRunId's majority calls Negative; -1 none"),
  chunkCount: count.nullable(),
  lowestConfidence: z.number().nullable(),
  problemPreview: z.string().describe("The problem's first 200 characters"),
});

export const solutionPageSchema = z.object({
  items: z.array(solutionRowSchema),
  total: count.describe("Matching solutions, counted up to 1,000"),
  totalIsExact: z.boolean().describe("false when more than 1,000 match (total is then 1,000)"),
  hasMore: z.boolean(),
  page: z.number().int().min(1),
  pageSize: z.number().int().min(1),
  pageCount: z.number().int().min(1).nullable(),
});

const runRef = z.object({
  runId: id,
  kind: z.enum(RUN_KIND_NAMES),
  createdAt: dateTime,
  label: z.string(),
  strategy: z.string().nullable(),
  rollouts: z.number().int().nullable(),
  judgeModel: z.string().nullable(),
  policyModel: z.string().nullable(),
});

export const solutionChunksSchema = z
  .object({
    id,
    externalId: z.string(),
    subset: z.string().nullable(),
    generator: z.string(),
    text: z.string(),
    finalAnswer: z.string().nullable(),
    finalAnswerCorrect: z.boolean().nullable(),
    sourceFirstErrorIndex: z.number().int().nullable(),
    metadata: z.unknown(),
    dataset: z.object({ id, name: z.string(), source: z.string() }),
    problem: z.object({ id, text: z.string(), referenceAnswer: z.string().nullable() }),
    runs: z.array(runRef).describe("Every run the chunks' Q-values, labels and verdicts come from"),
    solutionJudgements: z
      .array(
        z.object({
          runId: id,
          promptTemplateId: z.string().nullable(),
          predictedFirstError: z.number().int().nullable().describe("The run's first-error prediction; -1 no error; null unparseable"),
          score: z.number().nullable(),
          samples: z.array(
            z.object({
              index: count,
              text: z.string(),
              reading: z.number().nullable().describe("What was read from the sample: a critic's vote, a ThinkPRM chain's first error, an outcome score; null when unreadable"),
              answer: z.string().nullable().describe("The critic's answer string, which its vote counts"),
              truncated: z.boolean().describe("The output hit its generation limit"),
            }),
          ),
        }),
      )
      .describe("Judges that answer per solution (the ProcessBench critic, ThinkPRM, outcome models): each run's prediction and every sample"),
    segmentations: z.array(
      z.object({
        id,
        method: z.string(),
        chunks: z.array(
          z.object({
            id,
            index: z.number().int().min(0),
            text: z.string(),
            startOffset: count,
            endOffset: count,
            qValues: z.array(z.object({ runId: id, qValue: z.number(), rollouts: count, correct: count })).describe("Q after this chunk, per annotate run"),
            labels: z
              .array(z.object({ runId: id, rule: z.enum(STORED_LABEL_RULE_VALUES), paramsKey: z.string(), label: z.enum(StepLabel), confidence: z.number().nullable() }))
              .describe("Every label an annotate run stored for the chunk, per rule and parameters"),
            verdicts: z
              .array(z.object({ runId: id, sampleIndex: count, verdict: z.enum(Verdict), rationale: z.string(), promptTemplateId: z.string(), truncated: z.boolean().describe("The output hit its generation limit (not the same as unparseable)") }))
              .describe("Every judge sample on the chunk"),
          }),
        ),
      }),
    ),
  })
  .meta({ description: "A solution, its problem, and per segmentation its chunks with every run's Q-values, labels and judge verdicts." });

export const labelLineSchema = z
  .object({
    run_id: id,
    dataset_id: id,
    solution_id: id,
    external_id: z.string(),
    subset: z.string().nullable(),
    segmentation_id: id,
    segmentation_method: z.string(),
    chunk_index: z.number().int().min(0),
    text: z.string(),
    q_value: z.number().nullable(),
    q_previous: z.number().nullable(),
    rollouts: count.nullable(),
    correct: count.nullable(),
    labels: z.array(z.object({ rule: z.string(), params: z.record(z.string(), z.unknown()), name: z.string(), label: z.string(), confidence: z.number().nullable() })),
    monotonicity: z.string().nullable(),
    human_labels: z.array(
      z.object({
        author_id: z.string(),
        external_author: z.string().nullable(),
        rating: z.number().nullable(),
        flagged: z.boolean(),
        source: z.string(),
        queue_id: z.string().nullable(),
        created_at: dateTime,
      }),
    ),
  })
  .meta({ description: "One line of a run's labels (JSON Lines): one chunk, the labels export's format." });

export const predictionLineSchema = z
  .object({
    id: z.string().describe("The solution's external id"),
    prediction: z.number().int().nullable().describe("Index of the first erroneous chunk, -1 for none; null where the run has no prediction"),
  })
  .meta({ description: "One line of a run's predictions (JSON Lines), ProcessBench's format." });
