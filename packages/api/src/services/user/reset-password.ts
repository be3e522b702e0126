import { randomUUID } from "node:crypto";
import { InputError, NotFoundError } from "@stepwiser/core";
import { recordAudit } from "@stepwiser/db";
import { hashPassword } from "better-auth/crypto";
import { generatePassword, MIN_PASSWORD_LENGTH } from "../../auth/users";
import type { ServiceArgs } from "../args";
import { currentSessionId, deleteSessions } from "./sessions";

/**
 * Gives an account a new password, the one given or a generated one (returned
 * here, once, and stored only as its hash), and ends the account's sessions,
 * so whoever knew the old password is signed out. An admin resetting their own
 * password keeps the session they did it from.
 */
export async function resetUserPassword({ db, user, credential, input }: ServiceArgs<{ userId: string; password?: string }>) {
  const generated = input.password === undefined;
  const password = input.password ?? generatePassword();
  if (password.length < MIN_PASSWORD_LENGTH) throw new InputError(`must be at least ${MIN_PASSWORD_LENGTH} characters`, { field: "password" });
  const hash = await hashPassword(password);
  return db.$transaction(async (tx) => {
    const target = await tx.user.findUnique({ where: { id: input.userId }, select: { id: true } });
    if (!target) throw new NotFoundError(`user ${input.userId} does not exist`);
    const { count } = await tx.account.updateMany({ where: { userId: target.id, providerId: "credential" }, data: { password: hash } });
    if (count === 0) {
      await tx.account.create({ data: { id: randomUUID(), accountId: target.id, providerId: "credential", userId: target.id, password: hash } });
    }
    const sessionsEnded = await deleteSessions(tx, target.id, target.id === user.id ? currentSessionId(credential) : undefined);
    await recordAudit(tx, user.id, { action: "user.password_reset", entityType: "User", entityId: target.id, after: { generated, sessionsEnded } });
    return { id: target.id, sessionsEnded, generatedPassword: generated ? password : null };
  });
}
