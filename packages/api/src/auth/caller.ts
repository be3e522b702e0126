import type { ApiTokenScope } from "@stepwiser/core";
import type { SessionUser } from "./session-user";

/** How a request's caller proved who they are: a signed-in session (its cookie) or an API token (with its scope). */
export type Credential = { kind: "session"; sessionId: string } | { kind: "token"; tokenId: string; scope: ApiTokenScope };

/** A request's caller and how they authenticated. */
export interface Caller {
  user: SessionUser;
  credential: Credential;
}

export const READ_ONLY_TOKEN_MESSAGE = "this API token has the read scope and cannot change anything; create a read-write token for this";

/**
 * Why the credential may not change state (a read-scoped API token), or null when it may.
 * A request with no credential (anonymous, or a caller inside the server) is not refused here.
 */
export function readOnlyRefusal(credential: Credential | null | undefined): string | null {
  return credential?.kind === "token" && credential.scope === "read" ? READ_ONLY_TOKEN_MESSAGE : null;
}

/** Whether a plain HTTP request by this method changes state: anything but GET, HEAD and OPTIONS. */
export function methodChangesState(method: string): boolean {
  return !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}
