import { IMPORT_FORMATS, InputError, ON_INVALID_POLICIES, parseFieldMapping, STORED_LABEL_RULE_VALUES } from "@stepwiser/core";
import { AnnotationScheme, DatasetStatus, EndpointRole, RunStatus, StepLabel, Verdict } from "@stepwiser/db";
import { DUPLICATE_POLICIES, exportSpecSchema, importOptionsSchema, RUN_KIND_NAMES } from "@stepwiser/jobs";
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
        .enum([
          "BAD_REQUEST",
          "UNAUTHORIZED",
          "FORBIDDEN",
          "NOT_FOUND",
          "METHOD_NOT_SUPPORTED",
          "CONFLICT",
          "PAYLOAD_TOO_LARGE",
          "UNSUPPORTED_MEDIA_TYPE",
          "TOO_MANY_REQUESTS",
          "INTERNAL_SERVER_ERROR",
          "SERVICE_UNAVAILABLE",
        ])
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
    durationSeconds: z.number().min(0).nullable().describe("finishedAt − startedAt; null until the run has started and ended"),
    results: z
      .object({
        averageF1: z
          .object({ value: z.number(), partial: z.boolean(), subsets: z.array(z.string()) })
          .nullable()
          .describe("A ProcessBench-scored benchmark run's average F1; partial unless over ProcessBench's four subsets, which subsets names"),
        prmscore: z.number().nullable().describe("A PRMBench-scored benchmark run's PRMScore"),
        negativeShare: z.number().min(0).max(1).nullable().describe("A judge run's Negative samples among its readable (Positive or Negative) ones"),
        labelBalance: z.number().min(0).max(1).nullable().describe("An annotate run's Positive labels among its labels under rule"),
        meanConfidence: z.number().min(0).max(1).nullable().describe("An annotate run's mean label confidence under rule (labels without one left out)"),
        rule: z.string().nullable().describe("The annotate run's first label rule, which labelBalance and meanConfidence are under"),
        mcAgreement: z
          .object({
            value: z.number().min(0).max(1),
            run: z.object({ id, name: z.string() }).describe("The annotate run whose Monte-Carlo labels the judge run was compared with"),
            rule: z.string().nullable().describe("That annotate run's first label rule, which the labels are under"),
          })
          .nullable()
          .describe(
            "A judge run's agreement with Monte-Carlo labels: the share of its judged chunks labelled by run under rule whose majority verdict equals the label; run is the most recently finished completed annotate run of the dataset and segmentation method when the judge run finished",
          ),
      })
      .describe("What the run's kind ranks it by once finished; null where the kind has no such figure or the run has not finished"),
  })
  .meta({ description: "A run in a list: its fields, dataset, creator, models, cost, duration and results." });

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

export const uploadedFileSchema = z
  .object({
    fileId: id.describe("What POST /imports takes in fileIds"),
    fileName: z.string().describe("The safe base name the file is stored under (path segments, controls and invisible characters removed)"),
    sizeBytes: count,
    sha256: z.string().regex(/^[0-9a-f]{64}$/).describe("SHA-256 of the stored bytes, hex"),
  })
  .meta({ description: "A stored upload." });

export const importRunsSchema = z
  .object({ runs: z.array(runDetailSchema).describe("One queued import run per file, in the order of fileIds") })
  .meta({ description: "The import runs queued, one per file; poll GET /runs/{id} until each has ended." });

export const importReportLineSchema = z
  .object({
    file: z.string().describe("The uploaded file's name"),
    line: z.number().int().min(1).describe("1-based line (or row) of the record in the file"),
    record: z.number().int().min(0).describe("0-based index of the record"),
    field: z.string().nullable().describe("The record's field that is wrong, dotted; null when the whole record is"),
    reason: z.string(),
    kind: z.enum(["invalid", "ignored"]).describe("invalid: left out because it cannot be read (onInvalid skip); ignored: not an importable record"),
  })
  .meta({ description: "One line of an import run's report (JSON Lines): a record left out of the import." });

export const exportFilesSchema = z
  .object({
    files: z.array(
      z.object({
        fileId: id.describe("What GET /files/{id} downloads"),
        name: z.string(),
        sizeBytes: count,
        sha256: z.string().nullable().describe("SHA-256 of the file's bytes, hex"),
      }),
    ),
  })
  .meta({ description: "The files a completed export run wrote, by name." });

const price = z.number().min(0).nullable();

export const endpointListSchema = z
  .object({
    endpoints: z.array(
      z.object({
        id,
        name: z.string().describe("What run configurations name (policyEndpoint, judgeEndpoint, …)"),
        model: z.string(),
        role: z.enum(EndpointRole),
        urls: z.array(z.string()).describe("One OpenAI base URL per replica"),
        maxConcurrency: z.number().int().min(1).describe("Requests in flight per replica"),
        protocols: z.array(z.string()).describe("The judge protocols the model speaks"),
        serverKind: z.string().describe('The server behind it ("auto": asked from its model list)'),
        hasApiKey: z.boolean().describe("Whether a key is stored; the key itself is never sent"),
        prices: z
          .object({ promptPerMTokens: price, cachedPromptPerMTokens: price, completionPerMTokens: price })
          .describe("USD per 1M tokens; null where no price is set"),
        cacheReport: z
          .object({ runs: count, requests: count, cachedTokens: count, warning: z.string().nullable() })
          .nullable()
          .describe("What a priced endpoint's recent runs reported of cached prompt tokens; null when unpriced"),
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
    ),
  })
  .meta({ description: "Every inference endpoint, policy first then judge then segmenter, by name; never an API key." });

export const queueListSchema = z
  .object({
    queues: z.array(
      z.object({
        id,
        name: z.string(),
        datasetId: id,
        datasetName: z.string().nullable().describe("null for an annotator, who sees no datasets"),
        scheme: z.enum(AnnotationScheme),
        blind: z.boolean(),
        annotatorsPerItem: z.number().int().min(1),
        items: count.describe("Items (solutions) in the queue"),
        progress: z.object({
          completedItems: count.describe("Items with annotatorsPerItem submissions"),
          adjudicatedItems: count,
          submissions: count,
          mySubmitted: count.describe("The caller's own submissions"),
          fraction: z.number().min(0).max(1).describe("completedItems / items (0 for an empty queue)"),
        }),
        archivedAt: dateTime.nullable(),
        createdAt: dateTime,
      }),
    ),
  })
  .meta({ description: "The annotation queues the caller may see (an annotator: their member queues), newest first, archived ones too." });

const agreementAnnotator = z.object({ id, name: z.string() });

export const queueDetailSchema = z
  .looseObject({
    id,
    name: z.string(),
    instructions: z.string(),
    scheme: z.enum(AnnotationScheme),
    annotatorsPerItem: z.number().int().min(1),
    leaseSeconds: z.number().int().min(1),
    blind: z.boolean(),
    datasetId: id,
    datasetName: z.string().nullable(),
    createdAt: dateTime,
    archivedAt: dateTime.nullable(),
    members: z
      .array(z.object({ userId: id, name: z.string(), email: z.string(), role: z.string(), addedAt: dateTime, addedByName: z.string().nullable() }))
      .describe("Who works the queue (empty for an annotator)"),
    progress: z.object({
      items: count,
      completedItems: count,
      submissions: count,
      activeLeases: count,
      adjudicatedItems: count,
      mySubmitted: count,
      annotators: z
        .array(z.object({ userId: id, name: z.string(), email: z.string(), submitted: count, skipped: count, leased: count.describe("Unexpired leases held now") }))
        .describe("Progress per annotator, most submissions first (an annotator sees only their own)"),
    }),
    agreement: z
      .looseObject({
        scheme: z.enum(AnnotationScheme),
        unit: z.enum(["chunk", "solution"]),
        ratedUnits: count,
        fleiss: z.object({ kappa: z.number(), observedAgreement: z.number(), expectedAgreement: z.number(), items: count, raters: count }).nullable().describe("Fleiss' κ over units rated by annotatorsPerItem annotators"),
        cohen: z
          .array(z.object({ a: agreementAnnotator, b: agreementAnnotator, kappa: z.number(), observedAgreement: z.number(), expectedAgreement: z.number(), items: count }))
          .describe("Cohen's κ per pair of annotators"),
        disagreements: z.array(z.looseObject({ itemId: id, solutionId: id, externalId: z.string(), position: count, chunkIndex: z.number().int().nullable(), adjudicated: z.boolean() })),
      })
      .nullable()
      .describe("Inter-annotator agreement over submitted work; null for a caller without research.read"),
  })
  .meta({ description: "One annotation queue: settings, progress per annotator and inter-annotator agreement." });

export const humanLabelLineSchema = z
  .object({
    queue_id: id,
    queue_name: z.string(),
    scheme: z.enum(AnnotationScheme),
    dataset_id: id,
    solution_id: id,
    external_id: z.string(),
    item_id: id.nullable(),
    chunk_index: z.number().int().min(0),
    chunk_id: id,
    label_id: id,
    rating: z.number().nullable(),
    label: z.string().nullable(),
    first_error_index: z.number().int().nullable().describe("First-error scheme: the submission's pick; null in the rating scheme"),
    flagged: z.boolean(),
    note: z.string().nullable(),
    source: z.string(),
    author_id: id,
    author_email: z.string(),
    assignment_id: id.nullable(),
    created_at: dateTime,
    current: z.boolean().describe("false when a later row of the same author, chunk and source supersedes this one"),
    blind: z.boolean(),
  })
  .meta({ description: "One line of a queue's human labels (JSON Lines): one HumanLabel row with its provenance." });

/** Where an import option's issue sits in the REST body, which names two options as the command line does. */
const IMPORT_BODY_FIELD: Record<string, string> = { datasetName: "name", mapping: "map" };

/**
 * `POST /imports`: the import options with the command line's names (`name`
 * for a new dataset's name, `map` for the field mapping, given as an object or
 * in the CLI's `problem=question,steps=steps` form) and the uploads to import.
 * Checked by the import's own options schema; an issue names the body field.
 */
export const importRequestSchema = z
  .strictObject({
    format: z.enum(IMPORT_FORMATS),
    fileIds: z.array(id).min(1).max(100).describe("Uploads (POST /uploads); one import run per file, with the same options"),
    name: z.string().optional().describe("Name of the dataset the import creates (default: from the file name); one file only"),
    datasetId: id.optional().describe("Add the records to this existing dataset instead of creating one"),
    subset: z.string().optional().describe("Subset name for every record (ProcessBench default: the id's prefix)"),
    generator: z.string().optional().describe("Generator for formats that do not name the policy that wrote the solutions"),
    map: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe('jsonl and parquet: where each field lives in a record, as an object ({"problem": "question", "steps": "steps"}) or as the CLI writes it ("problem=question,steps=steps")'),
    duplicates: z.enum(DUPLICATE_POLICIES).optional().describe("A record already in the dataset: skip it (default) or replace it"),
    deleteHumanLabels: z.boolean().optional().describe('duplicates "replace" only: delete the human work replaced solutions hold (without it such an import fails, naming how much)'),
    onInvalid: z.enum(ON_INVALID_POLICIES).optional().describe("A record that cannot be read: fail the import (default) or skip it and list it in the report"),
    maxInvalidShare: z.number().min(0).max(1).optional().describe('onInvalid "skip" only: the largest share of records left out before the import fails instead (default 0.05)'),
  })
  .transform((body, ctx) => {
    let mapping: unknown = body.map;
    if (typeof body.map === "string") {
      try {
        mapping = parseFieldMapping(body.map);
      } catch (error) {
        ctx.addIssue({ code: "custom", path: ["map"], message: error instanceof InputError ? error.reason : String(error) });
        return z.NEVER;
      }
    }
    const { fileIds, name, map: _map, ...rest } = body;
    const parsed = importOptionsSchema.safeParse({ ...rest, datasetName: name, mapping });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const [first, ...tail] = issue.path.map(String);
        ctx.addIssue({ code: "custom", path: first === undefined ? [] : [IMPORT_BODY_FIELD[first] ?? first, ...tail], message: issue.message });
      }
      return z.NEVER;
    }
    return { fileIds, options: parsed.data };
  })
  .meta({ description: "Uploaded files to import, with the import's options." });

/** The export kinds the REST API starts (batch request files belong to the offline runs' own workflow). */
export const EXPORT_REQUEST_KINDS = ["training-set", "labels", "predictions", "segmentation-sft", "selection"] as const;
export type ExportRequestKind = (typeof EXPORT_REQUEST_KINDS)[number];

/** The field of an export spec that names its source run. */
export const exportRunField = (kind: ExportRequestKind) => (kind === "training-set" ? "annotateRunId" : "runId");

/** Each export kind's schema, as the export run's own spec names it. */
export function exportKindSchema(kind: ExportRequestKind) {
  const schema = exportSpecSchema.options.find((option) => option.shape.kind.value === kind);
  if (!schema) throw new Error(`no export kind ${kind}`);
  return schema;
}

/** The options a kind takes: its spec's fields but the kind and the source run. */
export function exportOptionNames(kind: ExportRequestKind): string[] {
  return Object.keys(exportKindSchema(kind).shape).filter((key) => key !== "kind" && key !== exportRunField(kind));
}

/** A kind's options as one object schema (for the document): its spec without the kind and the source run. */
export function exportOptionsSchema(kind: ExportRequestKind): z.ZodObject {
  const names = exportOptionNames(kind);
  return z.object(Object.fromEntries(Object.entries(exportKindSchema(kind).shape as Record<string, z.ZodType>).filter(([name]) => names.includes(name))));
}

/** Where an export spec's issue sits in the REST body: the source run is `runId`, the rest is under `options`. */
export function exportBodyField(field: string | undefined): string | undefined {
  if (field === undefined || field === "") return undefined;
  const [first] = field.split(".");
  if (first === "runId" || first === "annotateRunId") return "runId";
  if (first === "kind") return "kind";
  return `options.${field}`;
}

/**
 * `POST /exports`: the kind, the run it reads and the kind's options (the
 * export spec's fields, as the CLI's flags set them: `labelRule`, `format`,
 * `seed`, …). Checked by the export's own spec schema; an option the kind does
 * not take is refused by name rather than ignored.
 */
export const exportRequestSchema = z
  .strictObject({
    kind: z.enum(EXPORT_REQUEST_KINDS),
    runId: id.describe("The run exported: an annotate (or labelled import) run for training-set and labels, a judge or benchmark run for predictions, a segment run for segmentation-sft, a judge run for selection"),
    options: z.record(z.string(), z.unknown()).optional().describe("The kind's options, as its schema in this document names them (TrainingSetExportOptions, SegmentationSftExportOptions, SelectionExportOptions); labels and predictions take none"),
  })
  .transform((body, ctx) => {
    const options = body.options ?? {};
    for (const key of ["kind", "runId", "annotateRunId"]) {
      if (Object.hasOwn(options, key)) {
        ctx.addIssue({ code: "custom", path: ["options", key], message: "give the run as runId and the kind as kind, beside options" });
        return z.NEVER;
      }
    }
    const parsed = exportSpecSchema.safeParse({ ...options, kind: body.kind, [exportRunField(body.kind)]: body.runId });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = exportBodyField(issue.path.map(String).join("."));
        ctx.addIssue({ code: "custom", path: field ? field.split(".") : [], message: issue.message });
      }
      return z.NEVER;
    }
    const unknown = Object.keys(options).find((key) => !Object.hasOwn(parsed.data, key));
    if (unknown !== undefined) {
      const known = exportOptionNames(body.kind);
      ctx.addIssue({ code: "custom", path: ["options", unknown], message: `is not an option of a ${body.kind} export (its options: ${known.length ? known.join(", ") : "none"})` });
      return z.NEVER;
    }
    return { spec: parsed.data };
  })
  .meta({ description: "An export to run: its kind, the run it reads and the kind's options." });
