import { ConflictError, type JudgeProtocolId } from "@stepwiser/core";
import { recordAudit, type EndpointRole } from "@stepwiser/db";
import type { ServerKindSetting } from "@stepwiser/inference";
import type { ServiceArgs } from "../args";
import { auditSnapshot, isUniqueViolation, nameTakenMessage, publicEndpointSelect, toPublicEndpoint } from "./fields";

export interface NewEndpoint {
  name: string;
  baseUrls: string[];
  model: string;
  role: EndpointRole;
  maxConcurrency: number;
  /** USD per 1M tokens; absent or null = no price. */
  promptPricePerMTokens?: number | null;
  cachedPromptPricePerMTokens?: number | null;
  completionPricePerMTokens?: number | null;
  /** Absent = the default protocols (DEFAULT_ENDPOINT_PROTOCOLS). */
  protocols?: JudgeProtocolId[];
  /** Absent = "auto": the server's model list says what it is. */
  serverKind?: ServerKindSetting;
  /** Absent or "" = no key. */
  apiKey?: string;
}

/**
 * Admin only: an endpoint decides where runs send their traffic (prompts and
 * data included) and holds the key that pays for it.
 */
export async function createEndpoint({ db, user, input }: ServiceArgs<NewEndpoint>) {
  const taken = await db.endpoint.findUnique({ where: { name: input.name }, select: { id: true } });
  if (taken) throw new ConflictError(nameTakenMessage(input.name));
  const data = { ...input, apiKey: input.apiKey ? input.apiKey : null };
  try {
    return await db.$transaction(async (tx) => {
      const created = await tx.endpoint.create({ data, select: publicEndpointSelect });
      await recordAudit(tx, user.id, { action: "endpoint.created", entityType: "Endpoint", entityId: created.id, after: auditSnapshot(created) });
      return toPublicEndpoint(created);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(nameTakenMessage(input.name), { cause: error });
    throw error;
  }
}
