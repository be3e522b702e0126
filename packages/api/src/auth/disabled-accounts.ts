import { ACCOUNT_DISABLED_CODE, DISABLED_ACCOUNT_SIGN_IN_MESSAGE } from "@stepwiser/core";
import { APIError } from "better-auth";
import type pg from "pg";

/**
 * The auth library's hook before it stores a new session: a disabled account
 * gets none, so signing in with its correct password is refused (403) with
 * DISABLED_ACCOUNT_SIGN_IN_MESSAGE. A wrong password is refused earlier, as
 * for any account, so the message tells nothing to someone guessing.
 */
export function refuseDisabledAccounts(pool: pg.Pool) {
  return async (session: { userId: string }): Promise<void> => {
    const { rows } = await pool.query<{ disabledAt: Date | null }>(`SELECT "disabledAt" FROM "user" WHERE id = $1`, [session.userId]);
    if (rows[0]?.disabledAt) throw new APIError("FORBIDDEN", { message: DISABLED_ACCOUNT_SIGN_IN_MESSAGE, code: ACCOUNT_DISABLED_CODE });
  };
}
