import { describe, expect, it } from "vitest";
import { confirmationOf, disableRefusal, type AccountRow } from "../src/app/(app)/admin/users/account-actions";
import { tokenLifeOf } from "../src/app/(app)/settings/tokens/token-display";

const account = (id: string, role: AccountRow["role"], disabled = false): AccountRow => ({
  id,
  email: `${id}@example.test`,
  role,
  disabledAt: disabled ? new Date("2026-12-01T00:00:00Z") : null,
  activeSessions: 2,
  activeApiTokens: 1,
});

describe("the users page's account actions", () => {
  const me = account("me", "admin");
  it("refuses disabling oneself and the last active admin, and explains why", () => {
    const other = account("other", "admin");
    const viewer = account("viewer", "viewer");
    expect(disableRefusal(me, "me", [me, other, viewer])).toMatch(/your own account/);
    expect(disableRefusal(other, "me", [me, other, viewer])).toBeNull();
    expect(disableRefusal(viewer, "me", [me, viewer])).toBeNull();
    // An admin whose only fellow admin is disabled is the last active one (reached by a page left open while another admin acted).
    const lone = account("lone", "admin");
    expect(disableRefusal(lone, "me", [account("me", "admin", true), lone])).toMatch(/last active admin/);
    // A disabled account has nothing to refuse: it is enabled, not disabled.
    expect(disableRefusal(account("gone", "admin", true), "me", [me])).toBeNull();
  });

  it("asks before each action, saying what it ends", () => {
    const viewer = { ...account("viewer", "viewer"), activeSessions: 1 };
    expect(confirmationOf("disable", viewer)).toBe(
      "Disable viewer@example.test? They cannot sign in until enabled again; their 1 session end now and their 1 API token are revoked for good.",
    );
    expect(confirmationOf("enable", viewer)).toMatch(/tokens revoked when the account was disabled stay revoked/);
    expect(confirmationOf("resetPassword", viewer)).toMatch(/1 session end now; their API tokens keep working/);
    expect(confirmationOf("endSessions", { ...viewer, activeSessions: 3 })).toBe("Sign viewer@example.test out everywhere (3 sessions)? Their API tokens keep working.");
  });
});

describe("the tokens page's expiry column", () => {
  const now = new Date("2026-12-02T12:00:00Z");
  it("counts down to the expiry, says when a token expired, and a revoked token stays revoked", () => {
    expect(tokenLifeOf({ revokedAt: null, expiresAt: new Date("2027-03-02T12:00:00Z") }, now)).toEqual({ state: "active", expiry: "in 90 days" });
    expect(tokenLifeOf({ revokedAt: null, expiresAt: new Date("2026-12-02T17:30:00Z") }, now)).toEqual({ state: "active", expiry: "in 5 hours" });
    expect(tokenLifeOf({ revokedAt: null, expiresAt: new Date("2026-11-30T11:00:00Z") }, now)).toEqual({ state: "expired", expiry: "expired 2 days ago" });
    expect(tokenLifeOf({ revokedAt: null, expiresAt: now }, now).state).toBe("expired");
    expect(tokenLifeOf({ revokedAt: new Date("2026-11-01T00:00:00Z"), expiresAt: new Date("2026-11-02T00:00:00Z") }, now).state).toBe("revoked");
  });
});
