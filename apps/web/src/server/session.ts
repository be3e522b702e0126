import "server-only";
import { getAuth, sessionUserFromHeaders, type SessionUser } from "@stepwiser/api";
import { can, type Capability } from "@stepwiser/core";
import { headers } from "next/headers";
import { redirect } from "next/navigation";

export async function currentUser(): Promise<SessionUser | null> {
  return sessionUserFromHeaders(getAuth(), await headers());
}

/** For server components behind sign-in: anonymous visitors go to the sign-in page. */
export async function requireUser(capability: Capability = "account"): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  if (!can(user.role, capability)) redirect(`${homePath(user)}?denied=${capability}`);
  return user;
}

/** Where a signed-in user lands: annotators have no datasets to see, only their queues. */
export function homePath(user: SessionUser): string {
  return can(user.role, "research.read") ? "/datasets" : "/annotation-queues";
}
