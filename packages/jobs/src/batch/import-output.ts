import { InputError, parseJsonAt, type SourceLine } from "@stepwiser/core";
import type { Db, Prisma, RunUnitStatus } from "@stepwiser/db";
import { z } from "zod";
import type { BatchUnit, UnitRunKinds } from "../runs/run-kind";
import { recordRunCost } from "../runs/run-spend-record";
import { loadBatchRun, type BatchRun } from "./batch-run";
import { parseBatchRequestId, type BatchRequestId } from "./custom-id";
import { recordAudit } from "@stepwiser/db";

/**
 * One line of `vllm run-batch` output (the OpenAI batch output format). A request
 * that failed has `error` set and no response body.
 */
const outputLineSchema = z.object({
  id: z.string(),
  custom_id: z.string(),
  response: z
    .object({
      status_code: z.number().int(),
      request_id: z.string().nullish(),
      body: z.unknown(),
    })
    .nullable(),
  error: z.unknown().optional(),
});

/** The parts of a chat completion the import stores; the rest is ignored. */
const chatCompletionSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number().int().min(0),
      message: z.object({ content: z.string().nullish() }),
      /** "length" marks a judge output cut at its generation limit (stored as truncated). */
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: z.number().int().min(0),
      completion_tokens: z.number().int().min(0),
      prompt_tokens_details: z.object({ cached_tokens: z.number().int().min(0).nullish() }).nullish(),
    })
    .nullish(),
});

export interface BatchImportResult {
  /** Output lines whose samples were stored: requests the execution will not send. */
  requests: number;
  /** Rollouts or judge samples stored. */
  samples: number;
  /**
   * Lines not stored: failed requests (the execution sends them online), lines
   * of units already done, and lines whose samples were already stored (a file
   * imported twice).
   */
  skipped: number;
  /**
   * Why nothing was stored, when every line of the file failed the same known way: vLLM's
   * `The model \`X\` does not exist.` (404) on every line means the batch ran under another
   * model name than the requests' `body.model`. Absent otherwise.
   */
  skippedReason?: string;
}

/**
 * The model named by vLLM's unknown-model error (`OpenAIServing._check_model`: "The model `X` does
 * not exist.", type NotFoundError, code 404), or null. `run-batch` writes the error response as the
 * line's `error`: `{"error": {"message", "type", "param", "code"}}` in current releases, the flat
 * `{"object": "error", "message", …}` in older ones; a plain string is accepted too.
 */
export function unknownModelOfBatchError(error: unknown): string | null {
  const messageOf = (value: unknown): unknown => {
    if (typeof value === "string") return value;
    if (typeof value !== "object" || value === null) return undefined;
    const record = value as Record<string, unknown>;
    return typeof record.message === "string" ? record.message : messageOf(record.error);
  };
  const message = messageOf(error);
  if (typeof message !== "string") return null;
  const match = /^The model `([\s\S]*)` does not exist\.$/.exec(message.trim());
  return match ? match[1]! : null;
}

/**
 * A whole `vllm run-batch` output file can hold hours of generation; it is
 * validated and stored in one transaction so a bad line leaves nothing behind.
 */
const IMPORT_TRANSACTION_TIMEOUT_MS = 6 * 60 * 60_000;
const ROW_BATCH = 1000;
const CACHED_UNITS = 256;

interface UnitEntry extends BatchUnit {
  status: RunUnitStatus;
}

/**
 * Stores the answers of a `vllm run-batch` output file for a run exported with
 * `batchRequestLines`: Rollout rows graded exactly as online (annotate) or
 * JudgeSample rows with parsed verdicts (judge), and the requests' token usage
 * added to the run's counters as the online client records it. Executing the run
 * afterwards finds the samples stored and sends only what is still missing.
 *
 * Every line is validated (errors name file, line and field); a custom_id of
 * another run, an unknown unit or position, a sample range outside the run's
 * configuration, a wrong number of choices, or a custom_id seen twice rejects the
 * whole file, and nothing is stored. Failed requests (non-200 or `error` set) are
 * skipped and counted: the execution requests them online.
 */
export async function importBatchOutput(db: Db, runId: string, unitKinds: UnitRunKinds, lines: AsyncIterable<SourceLine>, file: string): Promise<BatchImportResult> {
  const batch = await loadBatchRun(db, runId, unitKinds);
  if (!batch.run.plannedAt) {
    throw new InputError(`run ${runId} has no exported requests: export them with \`stepwiser batch export ${runId}\` first`, { file });
  }
  return db.$transaction((tx) => importLines(tx, batch, lines, file), { maxWait: 30_000, timeout: IMPORT_TRANSACTION_TIMEOUT_MS });
}

async function importLines(tx: Prisma.TransactionClient, batch: BatchRun, lines: AsyncIterable<SourceLine>, file: string): Promise<BatchImportResult> {
  const runId = batch.run.id;
  const result: BatchImportResult = { requests: 0, samples: 0, skipped: 0 };
  let linesRead = 0;
  const unknownModels = new Map<string, number>();
  const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  const seen = new Map<string, number>();
  const units = new Map<string, UnitEntry>();
  let rollouts: Prisma.RolloutCreateManyInput[] = [];
  let judgeSamples: Prisma.JudgeSampleCreateManyInput[] = [];

  const flush = async () => {
    if (rollouts.length) await tx.rollout.createMany({ data: rollouts, skipDuplicates: true });
    if (judgeSamples.length) await tx.judgeSample.createMany({ data: judgeSamples, skipDuplicates: true });
    rollouts = [];
    judgeSamples = [];
  };

  const unitOf = async (id: BatchRequestId, line: number): Promise<UnitEntry> => {
    const cached = units.get(id.segmentationId);
    if (cached) return cached;
    const unit = await tx.runUnit.findUnique({ where: { runId_key: { runId, key: id.segmentationId } }, select: { status: true } });
    if (!unit) throw new InputError(`segmentation ${id.segmentationId} is not one of run ${runId}'s units`, { file, line, field: "custom_id" });
    // What this unit stored must be visible to the query below.
    await flush();
    const entry: UnitEntry = Object.assign(await batch.batch.unit(tx, runId, batch.config, id.segmentationId), { status: unit.status });
    if (units.size >= CACHED_UNITS) units.delete(units.keys().next().value!);
    units.set(id.segmentationId, entry);
    return entry;
  };

  for await (const source of lines) {
    const at = { file, line: source.line };
    const parsed = outputLineSchema.safeParse(parseJsonAt(source, file));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(issue.message, { ...at, field: issue.path.map(String).join(".") || undefined });
    }
    const output = parsed.data;
    const id = parseBatchRequestId(output.custom_id);
    if (!id) throw new InputError(`"${output.custom_id}" is not a request id of a StepWiser batch export`, { ...at, field: "custom_id" });
    if (id.runId !== runId) throw new InputError(`the request belongs to run ${id.runId}, not to run ${runId}`, { ...at, field: "custom_id" });
    if (id.kind !== batch.kind) throw new InputError(`a ${id.kind} request in the output of ${batch.kind} run ${runId}`, { ...at, field: "custom_id" });
    const firstSeen = seen.get(output.custom_id);
    if (firstSeen !== undefined) throw new InputError(`custom_id "${output.custom_id}" appears twice (first on line ${firstSeen})`, { ...at, field: "custom_id" });
    seen.set(output.custom_id, source.line);

    const unit = await unitOf(id, source.line);
    const { positions } = unit;
    if (id.position >= positions || !unit.hasPosition(id.position)) {
      throw new InputError(`${batch.batch.position.name} ${id.position} does not exist: segmentation ${id.segmentationId} has ${positions} chunks`, { ...at, field: "custom_id" });
    }
    const perPosition = batch.batch.samplesPerPosition(batch.config);
    if (id.first + id.count > perPosition) {
      throw new InputError(`samples ${id.first}-${id.first + id.count - 1} are outside the run's ${perPosition} per ${batch.batch.position.per}`, { ...at, field: "custom_id" });
    }

    linesRead += 1;
    const response = output.response;
    if (!response || response.status_code !== 200 || (output.error !== undefined && output.error !== null)) {
      const model = unknownModelOfBatchError(output.error);
      if (model !== null) unknownModels.set(model, (unknownModels.get(model) ?? 0) + 1);
      result.skipped += 1;
      continue;
    }
    const body = chatCompletionSchema.safeParse(response.body);
    if (!body.success) {
      const issue = body.error.issues[0]!;
      throw new InputError(issue.message, { ...at, field: ["response", "body", ...issue.path.map(String)].join(".") });
    }
    const { choices } = body.data;
    if (choices.length !== id.count) {
      throw new InputError(`${choices.length} choices, but the request asked for n = ${id.count}`, { ...at, field: "response.body.choices" });
    }
    const texts: string[] = [];
    const finishReasons: Array<string | null> = [];
    for (const [i, choice] of choices.entries()) {
      if (choice.index >= id.count || texts[choice.index] !== undefined) {
        throw new InputError(`choice index ${choice.index} is ${choice.index >= id.count ? `not below n = ${id.count}` : "repeated"}`, { ...at, field: `response.body.choices.${i}.index` });
      }
      texts[choice.index] = choice.message.content ?? "";
      finishReasons[choice.index] = choice.finish_reason ?? null;
    }

    const sampleIndices = Array.from({ length: id.count }, (_, i) => id.first + i);
    if (unit.status === "done" || sampleIndices.some((i) => unit.stored.has(`${id.position}:${i}`))) {
      result.skipped += 1;
      continue;
    }
    const reported = {
      promptTokens: body.data.usage?.prompt_tokens ?? 0,
      completionTokens: body.data.usage?.completion_tokens ?? 0,
      cachedTokens: body.data.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    };
    const answers = texts.map((text, i) => ({ text, finishReason: finishReasons[i] ?? null }));
    const stored = await unit.rows(id.position, sampleIndices, answers, { promptTokens: reported.promptTokens, completionTokens: reported.completionTokens, cachedPromptTokens: reported.cachedTokens });
    if (stored.table === "rollout") rollouts.push(...stored.rows);
    else judgeSamples.push(...stored.rows);
    for (const i of sampleIndices) unit.stored.add(`${id.position}:${i}`);
    result.requests += 1;
    result.samples += id.count;
    usage.promptTokens += reported.promptTokens;
    usage.completionTokens += reported.completionTokens;
    usage.cachedTokens += reported.cachedTokens;
    if (rollouts.length + judgeSamples.length >= ROW_BATCH) await flush();
  }
  await flush();
  const unknown = [...unknownModels.values()].reduce((n, count) => n + count, 0);
  if (linesRead > 0 && unknown === linesRead) {
    const models = [...unknownModels.keys()];
    const named = models.map((m) => `\`${m}\``).join(", ");
    result.skippedReason =
      `every line failed with vLLM's "The model ${named} does not exist." (404): the batch ran under another model name than the requests' body.model. ` +
      `Run vllm run-batch with --served-model-name ${models.join(" ")} (or --model ${models[0]}), then import its output again.`;
  }

  // The same counters, in the same units, as the engine adds for each answered online request.
  const counters = await tx.run.update({
    where: { id: runId },
    data: {
      requests: { increment: result.requests },
      promptTokens: { increment: usage.promptTokens },
      completionTokens: { increment: usage.completionTokens },
      cachedTokens: { increment: usage.cachedTokens },
    },
    select: { promptTokens: true, completionTokens: true, cachedTokens: true },
  });
  await recordRunCost(tx, runId, batch.module.endpoints(batch.config), counters);
  await recordAudit(tx, null, { action: "run.batch_imported", entityType: "Run", entityId: runId, after: { file, ...result, ...usage } });
  return result;
}
