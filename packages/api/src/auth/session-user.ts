import type { UserRole } from "@stepwiser/core";

/** The caller of a request: a signed-in account or the owner of an API token, with the role their row holds now. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRole;
}
