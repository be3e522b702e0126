import { describe, expect, it } from "vitest";
import { ROLES, roleAtLeast } from "../src";

describe("role order", () => {
  it("gives each role the rights of every role below it and none above", () => {
    ROLES.forEach((role, i) =>
      ROLES.forEach((minimum, j) => expect(roleAtLeast(role, minimum)).toBe(i >= j)),
    );
  });
});
