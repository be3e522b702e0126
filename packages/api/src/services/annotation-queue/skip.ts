import { ConflictError } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { assignmentNotFound, notYours } from "./membership";

/** Gives a leased item back without labels: its slot frees for others, and it is never offered to the caller again. */
export async function skipAssignment({ db, user, input }: ServiceArgs<{ assignmentId: string }>): Promise<{ ok: true }> {
  const skipped = await db.annotationAssignment.updateMany({
    where: { id: input.assignmentId, annotatorId: user.id, status: "leased" },
    data: { status: "skipped" },
  });
  if (skipped.count === 1) return { ok: true };
  const found = await db.annotationAssignment.findUnique({ where: { id: input.assignmentId }, select: { annotatorId: true, status: true } });
  if (!found) throw assignmentNotFound(input.assignmentId);
  if (found.annotatorId !== user.id) throw notYours();
  // A repeated skip (double click, retry) has nothing left to do.
  if (found.status === "skipped") return { ok: true };
  throw new ConflictError(`this assignment was already ${found.status}; only a leased item can be skipped`);
}
