import { ConflictError } from "@stepwiser/core";
import { createUserWithPassword, type NewUser } from "../../auth/users";
import type { ServiceArgs } from "../args";

/** A new account with a password, able to sign in at once; an email already taken is a conflict. */
export async function createUser({ db, user, input }: ServiceArgs<NewUser>) {
  const taken = await db.user.findUnique({ where: { email: input.email.toLowerCase() }, select: { id: true } });
  if (taken) throw new ConflictError(`a user with email ${input.email} already exists`);
  return createUserWithPassword(db, input, user.id);
}
