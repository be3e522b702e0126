import { can, limitedToMemberQueues } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { TRPCError } from "@trpc/server";
import type { SessionUser } from "../../trpc";

type Reader = Pick<Db, "annotationQueueMember" | "annotationAssignment" | "user">;

/**
 * The same answer for a queue that does not exist and one the caller may not
 * see, so an annotator cannot learn which queue ids exist by guessing.
 */
export const queueNotFound = (queueId: string) => new TRPCError({ code: "NOT_FOUND", message: `annotation queue ${queueId} does not exist` });

/** A where-fragment for AnnotationQueue limiting it to the caller's member queues when their role requires it. */
export function visibleQueuesWhere(user: SessionUser): Prisma.AnnotationQueueWhereInput {
  return limitedToMemberQueues(user.role) ? { members: { some: { userId: user.id } } } : {};
}

export async function isQueueMember(db: Reader, queueId: string, userId: string): Promise<boolean> {
  const row = await db.annotationQueueMember.findUnique({ where: { queueId_userId: { queueId, userId } }, select: { id: true } });
  return row !== null;
}

/**
 * Refuses a queue the caller's role limits them out of, with `notFound` (by default the queue's own
 * not-found answer); callers with every queue in view pass at once.
 */
export async function assertQueueVisible(db: Reader, user: SessionUser, queueId: string, notFound = () => queueNotFound(queueId)): Promise<void> {
  if (!limitedToMemberQueues(user.role)) return;
  if (!(await isQueueMember(db, queueId, user.id))) throw notFound();
}

export const assignmentNotFound = (assignmentId: string) => new TRPCError({ code: "NOT_FOUND", message: `assignment ${assignmentId} does not exist` });

/**
 * Refuses an assignment in a queue the caller is no longer a member of: a
 * removed annotator keeps no access through the ids they still hold.
 */
export async function assertAssignmentQueueVisible(db: Reader, user: SessionUser, assignmentId: string): Promise<void> {
  if (!limitedToMemberQueues(user.role)) return;
  const found = await db.annotationAssignment.findUnique({ where: { id: assignmentId }, select: { item: { select: { queueId: true } } } });
  if (!found) throw assignmentNotFound(assignmentId);
  await assertQueueVisible(db, user, found.item.queueId, () => assignmentNotFound(assignmentId));
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
    if (!user) throw new TRPCError({ code: "BAD_REQUEST", message: `${field}.${index}: user ${id} does not exist` });
    if (!can(user.role, "annotationQueues.annotate")) {
      throw new TRPCError({ code: "BAD_REQUEST", message: `${field}.${index}: ${user.email} is a ${user.role} and cannot annotate; give them the annotator role first` });
    }
  }
  return unique.map((id) => {
    const { role: _role, ...user } = byId.get(id)!;
    return user;
  });
}
