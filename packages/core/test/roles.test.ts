import { describe, expect, it } from "vitest";
import { allows, can, CAPABILITIES, capabilitiesOf, limitedToMemberQueues, ROLES, rolesWith, type Capability, type UserRole } from "../src";

/** The access model as a table: one line per role, the capabilities it holds. */
const EXPECTED: Record<UserRole, Capability[]> = {
  viewer: ["account", "research.read", "annotationQueues.view", "annotationQueues.all"],
  annotator: ["account", "annotationQueues.view", "annotationQueues.annotate"],
  researcher: ["account", "research.read", "research.manage", "annotationQueues.view", "annotationQueues.annotate", "annotationQueues.manage", "annotationQueues.all"],
  admin: [...CAPABILITIES],
};

describe("capabilities per role", () => {
  it("grants each role exactly the capabilities of the access model", () => {
    for (const role of ROLES) expect(capabilitiesOf(role), role).toEqual(EXPECTED[role]);
  });

  it("keeps an annotator away from research data and other people's queues", () => {
    for (const capability of ["research.read", "research.manage", "annotationQueues.manage", "annotationQueues.all", "users.manage", "endpoints.manage"] as const) {
      expect(can("annotator", capability), capability).toBe(false);
    }
    expect(limitedToMemberQueues("annotator")).toBe(true);
    for (const role of ["viewer", "researcher", "admin"] as const) expect(limitedToMemberQueues(role)).toBe(false);
  });

  it("is not a linear order: a viewer reads what an annotator cannot, an annotator labels what a viewer cannot", () => {
    expect(can("viewer", "research.read") && !can("annotator", "research.read")).toBe(true);
    expect(can("annotator", "annotationQueues.annotate") && !can("viewer", "annotationQueues.annotate")).toBe(true);
  });

  it("lets anonymous callers through public access only", () => {
    expect(allows("public", null)).toBe(true);
    for (const capability of CAPABILITIES) expect(allows(capability, null)).toBe(false);
    expect(allows("users.manage", "admin")).toBe(true);
    expect(allows("users.manage", "researcher")).toBe(false);
  });

  it("names the roles holding a capability", () => {
    expect(rolesWith("annotationQueues.annotate")).toEqual(["annotator", "researcher", "admin"]);
    expect(rolesWith("endpoints.manage")).toEqual(["admin"]);
  });
});
