import { describe, expect, it } from "vitest";
import { API_TOKEN_LIFETIME_CHOICES_DAYS, apiTokenExpiry, apiTokenState, isApiTokenScope, MAX_API_TOKEN_LIFETIME_DAYS, relativeTime } from "../../src";

describe("API token lifetimes and scopes", () => {
  const now = new Date("2026-12-02T10:00:00Z");

  it("a token expires whole days after it was made, 1 to 365 of them", () => {
    expect(apiTokenExpiry(90, now).toISOString()).toBe("2027-03-02T10:00:00.000Z");
    expect(apiTokenExpiry(1, now).toISOString()).toBe("2026-12-03T10:00:00.000Z");
    for (const days of API_TOKEN_LIFETIME_CHOICES_DAYS) expect(days).toBeLessThanOrEqual(MAX_API_TOKEN_LIFETIME_DAYS);
    for (const days of [0, -1, 366, 2.5, Number.NaN]) expect(() => apiTokenExpiry(days, now), String(days)).toThrow(/1 to 365 whole days/);
  });

  it("a token is active until its expiry, expired from that moment, and revoked whatever its expiry", () => {
    expect(apiTokenState({ revokedAt: null, expiresAt: new Date(now.getTime() + 1) }, now)).toBe("active");
    expect(apiTokenState({ revokedAt: null, expiresAt: now }, now)).toBe("expired");
    expect(apiTokenState({ revokedAt: now, expiresAt: new Date(now.getTime() + 1000) }, now)).toBe("revoked");
  });

  it("knows the two scopes and nothing else", () => {
    expect(["read", "read-write"].every(isApiTokenScope)).toBe(true);
    for (const value of ["write", "READ", "", null, 1]) expect(isApiTokenScope(value)).toBe(false);
  });

  it("says how far a moment is in the largest whole unit", () => {
    expect(relativeTime(new Date("2026-12-09T10:00:00Z"), now)).toBe("in 7 days");
    expect(relativeTime(new Date("2026-12-02T11:00:00Z"), now)).toBe("in 1 hour");
    expect(relativeTime(new Date("2026-12-02T09:58:00Z"), now)).toBe("2 minutes ago");
    expect(relativeTime(new Date("2026-12-02T10:00:10Z"), now)).toBe("in 1 minute");
  });
});
