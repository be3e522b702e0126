import { listOwnTokens } from "../../services/token/list";
import { accountProcedure } from "../../trpc";

/** The caller's tokens, revoked ones included, newest first; the hash never leaves the server. */
export const list = accountProcedure.query(({ ctx }) => listOwnTokens(ctx));
