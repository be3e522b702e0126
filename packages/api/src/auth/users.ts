import { randomBytes, randomUUID } from "node:crypto";
import type { UserRole } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { hashPassword } from "better-auth/crypto";
import { recordAudit } from "@stepwiser/db";

/** The shortest password the studio accepts (sign-in, new accounts, resets). */
export const MIN_PASSWORD_LENGTH = 8;

export interface NewUser {
  email: string;
  name: string;
  role: UserRole;
  password: string;
}

/**
 * Creates a user with an email/password credential in the auth library's own
 * storage format (account.providerId = "credential"), so it can sign in at once.
 */
export async function createUserWithPassword(db: Db, user: NewUser, actorId?: string) {
  if (user.password.length < MIN_PASSWORD_LENGTH) throw new Error(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const id = randomUUID();
  const password = await hashPassword(user.password);
  return db.$transaction(async (tx) => {
    const created = await tx.user.create({
      data: {
        id,
        email: user.email.toLowerCase(),
        name: user.name,
        role: user.role,
        emailVerified: true,
        accounts: { create: { id: randomUUID(), accountId: id, providerId: "credential", password } },
      },
      select: { id: true, email: true, name: true, role: true },
    });
    await recordAudit(tx, actorId, { action: "user.created", entityType: "User", entityId: id, after: { email: created.email, role: created.role } });
    return created;
  });
}

export function generatePassword(): string {
  return randomBytes(12).toString("base64url");
}

/**
 * First start: when no admin exists, create one. The password comes from
 * STEPWISER_ADMIN_PASSWORD or is generated and returned so it can be printed once.
 */
export async function ensureAdminUser(
  db: Db,
  options: { email: string; password?: string },
): Promise<{ created: false } | { created: true; email: string; password: string }> {
  const existing = await db.user.findFirst({ where: { role: "admin" }, select: { id: true } });
  if (existing) return { created: false };
  const password = options.password ?? generatePassword();
  await createUserWithPassword(db, { email: options.email, name: "Administrator", role: "admin", password });
  return { created: true, email: options.email.toLowerCase(), password };
}
