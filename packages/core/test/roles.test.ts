import { describe, expect, it } from "vitest";
import { allows, can, CAPABILITIES, capabilitiesOf, limitedToMemberQueues, ROLES, rolesWith, type Capability, type UserRole } from "../src";

/** The access model as a table: one line per role, the capabilities it holds. */
const EXPECTED: Record<UserRole, Capability[]> = {
  viewer: ["account", "research.read", "queues.view", "queues.all"],
  annotator: ["account", "queues.view", "queues.annotate"],
  researcher: ["account", "research.read", "research.manage", "queues.view", "queues.annotate", "queues.manage", "queues.all"],
  admin: [...CAPABILITIES],
};

describe("capabilities per role", () => {
  it("grants each role exactly the capabilities of the access model", () => {
    for (const role of ROLES) expect(capabilitiesOf(role), role).toEqual(EXPECTED[role]);
  });

  it("keeps an annotator away from research data and other people's queues", () => {
    for (const capability of ["research.read", "research.manage", "queues.manage", "queues.all", "users.manage", "endpoints.manage"] as const) {
      expect(can("annotator", capability), capability).toBe(false);
    }
    expect(limitedToMemberQueues("annotator")).toBe(true);
    for (const role of ["viewer", "researcher", "admin"] as const) expect(limitedToMemberQueues(role)).toBe(false);
  });

  it("is not a linear order: a viewer reads what an annotator cannot, an annotator labels what a viewer cannot", () => {
    expect(can("viewer", "research.read") && !can("annotator", "research.read")).toBe(true);
    expect(can("annotator", "queues.annotate") && !can("viewer", "queues.annotate")).toBe(true);
  });

  it("lets anonymous callers through public access only", () => {
    expect(allows("public", null)).toBe(true);
    for (const capability of CAPABILITIES) expect(allows(capability, null)).toBe(false);
    expect(allows("users.manage", "admin")).toBe(true);
    expect(allows("users.manage", "researcher")).toBe(false);
  });

  it("names the roles holding a capability", () => {
    expect(rolesWith("queues.annotate")).toEqual(["annotator", "researcher", "admin"]);
    expect(rolesWith("endpoints.manage")).toEqual(["admin"]);
  });
});
