import { ConflictError, NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import type { NewEndpoint } from "./create";
import { auditSnapshot, isUniqueViolation, nameTakenMessage, publicEndpointSelect, toPublicEndpoint } from "./fields";

/** Absent fields are left as they are; `apiKey`: absent = keep the stored key, "" = remove it, anything else replaces it. */
export type EndpointChange = { id: string } & Partial<NewEndpoint>;

/** Admin only, like create: endpoints route every run's traffic and hold keys. Absent fields are left as they are. */
export async function updateEndpoint({ db, user, input }: ServiceArgs<EndpointChange>) {
  const { id, apiKey, ...fields } = input;
  try {
    return await db.$transaction(async (tx) => {
      const before = await tx.endpoint.findUnique({ where: { id }, select: publicEndpointSelect });
      if (!before) throw new NotFoundError(`endpoint ${id} does not exist`);
      if (fields.name !== undefined && fields.name !== before.name) {
        const taken = await tx.endpoint.findUnique({ where: { name: fields.name }, select: { id: true } });
        if (taken) throw new ConflictError(nameTakenMessage(fields.name));
      }
      const after = await tx.endpoint.update({
        where: { id },
        data: { ...fields, ...(apiKey === undefined ? {} : { apiKey: apiKey === "" ? null : apiKey }) },
        select: publicEndpointSelect,
      });
      await recordAudit(tx, user.id, { action: "endpoint.updated", entityType: "Endpoint", entityId: id, before: auditSnapshot(before), after: auditSnapshot(after) });
      return toPublicEndpoint(after);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(nameTakenMessage(fields.name ?? ""), { cause: error });
    throw error;
  }
}
