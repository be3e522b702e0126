import { can, ForbiddenError, InputError, limitedToMemberQueues, NotFoundError } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { SessionUser } from "../../auth/session-user";

type Reader = Pick<Db, "annotationQueueMember" | "annotationAssignment" | "annotationItem" | "user">;

/**
 * The same answer for a queue that does not exist and one the caller may not
 * see, so an annotator cannot learn which queue ids exist by guessing.
 */
export const queueNotFound = (queueId: string) => new NotFoundError(`annotation queue ${queueId} does not exist`);
export const assignmentNotFound = (assignmentId: string) => new NotFoundError(`assignment ${assignmentId} does not exist`);
export const itemNotFound = (itemId: string) => new NotFoundError(`annotation item ${itemId} does not exist`);
/** An assignment is its annotator's alone: nobody else reads, submits or skips it. */
export const notYours = () => new ForbiddenError("this assignment belongs to another annotator");

/** A where-fragment for AnnotationQueue limiting it to the caller's member queues when their role requires it. */
export function visibleQueuesWhere(user: SessionUser): Prisma.AnnotationQueueWhereInput {
  return limitedToMemberQueues(user.role) ? { members: { some: { userId: user.id } } } : {};
}

/** What a queue procedure's input names: the queue itself, or an assignment or item inside it. */
export type QueueRef = { queueId: string } | { assignmentId: string } | { itemId: string };

/** The queue reference in a parsed input (checked by `queueMemberProcedure`'s input type; this guards the rest). */
export function queueRefOf(input: unknown): QueueRef {
  const fields = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  for (const key of ["queueId", "assignmentId", "itemId"] as const) {
    const value = fields[key];
    if (typeof value === "string") return { [key]: value } as QueueRef;
  }
  throw new Error("a queue procedure's input names no queueId, assignmentId or itemId");
}

/**
 * Refuses what `ref` names unless the caller may work its queue: callers with
 * every queue in view pass at once; the others must be members of it, else
 * they get the not-found answer of what they named (a removed annotator keeps
 * no access through the ids they still hold). One lookup either way.
 */
export async function assertQueueMember(db: Reader, user: SessionUser, ref: QueueRef): Promise<void> {
  if (!limitedToMemberQueues(user.role)) return;
  const member = { members: { some: { userId: user.id } } };
  if ("queueId" in ref) {
    const row = await db.annotationQueueMember.findUnique({ where: { queueId_userId: { queueId: ref.queueId, userId: user.id } }, select: { id: true } });
    if (!row) throw queueNotFound(ref.queueId);
  } else if ("assignmentId" in ref) {
    const row = await db.annotationAssignment.findFirst({ where: { id: ref.assignmentId, item: { queue: member } }, select: { id: true } });
    if (!row) throw assignmentNotFound(ref.assignmentId);
  } else {
    const row = await db.annotationItem.findFirst({ where: { id: ref.itemId, queue: member }, select: { id: true } });
    if (!row) throw itemNotFound(ref.itemId);
  }
}

/**
 * Checks that every id names an account that can annotate, and says which one
 * does not (by its place in the list) when one cannot.
 */
export async function annotatorsToAdd(db: Reader, userIds: string[], field: string): Promise<Array<{ id: string; name: string; email: string }>> {
  const unique = [...new Set(userIds)];
  const users = await db.user.findMany({ where: { id: { in: unique } }, select: { id: true, name: true, email: true, role: true } });
  const byId = new Map(users.map((user) => [user.id, user]));
  for (const [index, id] of userIds.entries()) {
    const user = byId.get(id);
    if (!user) throw new InputError(`${field}.${index}: user ${id} does not exist`);
    if (!can(user.role, "annotationQueues.annotate")) {
      throw new InputError(`${field}.${index}: ${user.email} is a ${user.role} and cannot annotate; give them the annotator role first`);
    }
  }
  return unique.map((id) => {
    const { role: _role, ...user } = byId.get(id)!;
    return user;
  });
}
