import { describe, expect, it } from "vitest";
import { isDatabaseConnectionError } from "../src";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("telling a lost database connection from other errors", () => {
  it("recognises a server shutting down, refusing, resetting or out of reach", () => {
    expect(isDatabaseConnectionError(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isDatabaseConnectionError(withCode("the database system is shutting down", "57P03"))).toBe(true);
    expect(isDatabaseConnectionError(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"))).toBe(true);
    expect(isDatabaseConnectionError(withCode("connection failure", "08006"))).toBe(true);
    expect(isDatabaseConnectionError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseConnectionError(withCode("Invalid `db.run.findUnique()` invocation", "P1001"))).toBe(true);
    expect(isDatabaseConnectionError(new AggregateError([withCode("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")], ""))).toBe(true);
  });

  it("leaves failed statements, bugs and non-errors alone", () => {
    expect(isDatabaseConnectionError(withCode('duplicate key value violates unique constraint "Rollout_pkey"', "23505"))).toBe(false);
    expect(isDatabaseConnectionError(withCode('relation "missing" does not exist', "42P01"))).toBe(false);
    expect(isDatabaseConnectionError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseConnectionError("ECONNREFUSED")).toBe(false);
    expect(isDatabaseConnectionError(undefined)).toBe(false);
  });
});
