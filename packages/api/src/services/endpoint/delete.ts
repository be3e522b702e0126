import { NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { auditSnapshot, publicEndpointSelect } from "./fields";

/**
 * Admin only (endpoints route traffic and hold keys). Safe while runs use it:
 * a run snapshots the endpoint's URLs and model when it is launched.
 */
export async function deleteEndpoint({ db, user, input }: ServiceArgs<{ id: string }>) {
  return db.$transaction(async (tx) => {
    const before = await tx.endpoint.findUnique({ where: { id: input.id }, select: publicEndpointSelect });
    if (!before) throw new NotFoundError(`endpoint ${input.id} does not exist`);
    await tx.endpoint.delete({ where: { id: input.id } });
    await recordAudit(tx, user.id, { action: "endpoint.deleted", entityType: "Endpoint", entityId: input.id, before: auditSnapshot(before) });
    return { ok: true, id: input.id, name: before.name };
  });
}
