import type { UserRole } from "@stepwiser/core";

/** What the users page needs of an account to decide what may be done to it. */
export interface AccountRow {
  id: string;
  email: string;
  role: UserRole;
  disabledAt: Date | null;
  activeSessions: number;
  activeApiTokens: number;
}

/**
 * Why the signed-in admin cannot disable `account` (their own account, or the
 * last active admin), or null when they can. The server checks the same and
 * has the last word; this only explains a greyed-out button.
 */
export function disableRefusal(account: AccountRow, meId: string, accounts: readonly AccountRow[]): string | null {
  if (account.disabledAt) return null;
  if (account.id === meId) return "You cannot disable your own account; ask another admin.";
  const otherActiveAdmins = accounts.filter((a) => a.role === "admin" && !a.disabledAt && a.id !== account.id);
  if (account.role === "admin" && otherActiveAdmins.length === 0) return "The last active admin cannot be disabled; make another account admin first.";
  return null;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The question asked before each account action, saying what it ends. */
export function confirmationOf(action: "disable" | "enable" | "resetPassword" | "endSessions", account: AccountRow): string {
  switch (action) {
    case "disable":
      return `Disable ${account.email}? They cannot sign in until enabled again; their ${count(account.activeSessions, "session")} end now and their ${count(account.activeApiTokens, "API token")} are revoked for good.`;
    case "enable":
      return `Enable ${account.email}? They can sign in again; API tokens revoked when the account was disabled stay revoked.`;
    case "resetPassword":
      return `Set a new password for ${account.email}? Their ${count(account.activeSessions, "session")} end now; their API tokens keep working.`;
    case "endSessions":
      return `Sign ${account.email} out everywhere (${count(account.activeSessions, "session")})? Their API tokens keep working.`;
  }
}
