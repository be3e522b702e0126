import "server-only";
import { getAuth, sessionUserFromHeaders, type SessionUser } from "@stepwiser/api";
import { roleAtLeast, type UserRole } from "@stepwiser/core";
import { headers } from "next/headers";
import { redirect } from "next/navigation";

export async function currentUser(): Promise<SessionUser | null> {
  return sessionUserFromHeaders(getAuth(), await headers());
}

/** For server components behind sign-in: anonymous visitors go to the sign-in page. */
export async function requireUser(minimum: UserRole = "viewer"): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  if (!roleAtLeast(user.role, minimum)) redirect("/datasets?denied=" + minimum);
  return user;
}
