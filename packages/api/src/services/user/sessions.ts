import type { Prisma } from "@stepwiser/db";

/**
 * Deletes an account's sessions (all of them, or all but `keepSessionId`), so
 * their cookies stop working on the next request; returns how many there were.
 */
export async function deleteSessions(tx: Prisma.TransactionClient, userId: string, keepSessionId?: string): Promise<number> {
  const { count } = await tx.session.deleteMany({ where: { userId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } });
  return count;
}

/** The session a request came with, when it came with one: an account ending its own sessions keeps it. */
export function currentSessionId(credential: { kind: string; sessionId?: string } | null | undefined): string | undefined {
  return credential?.kind === "session" ? credential.sessionId : undefined;
}
