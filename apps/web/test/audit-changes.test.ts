import { describe, expect, it } from "vitest";
import { auditFieldChanges } from "~/app/(app)/admin/audit/audit-changes";

describe("auditFieldChanges", () => {
  it("lists only the fields whose value changed, by dotted path", () => {
    expect(
      auditFieldChanges({ role: "viewer", name: "Ada" }, { role: "researcher", name: "Ada" }),
    ).toEqual([{ field: "role", before: "viewer", after: "researcher" }]);
    expect(
      auditFieldChanges({ settings: { leaseSeconds: 600, blind: true } }, { settings: { leaseSeconds: 900, blind: true } }),
    ).toEqual([{ field: "settings.leaseSeconds", before: "600", after: "900" }]);
  });

  it("an entry with only an after lists every field it records; one with only a before every field it had", () => {
    expect(auditFieldChanges(null, { kind: "annotate", rules: ["abs-q", "rel-ratio"] })).toEqual([
      { field: "kind", before: null, after: "annotate" },
      { field: "rules", before: null, after: '["abs-q","rel-ratio"]' },
    ]);
    expect(auditFieldChanges({ name: "policy" }, null)).toEqual([{ field: "name", before: "policy", after: null }]);
  });

  it("nothing recorded is no change; arrays compare whole", () => {
    expect(auditFieldChanges(null, null)).toEqual([]);
    expect(auditFieldChanges({ members: [1, 2] }, { members: [1, 2] })).toEqual([]);
    expect(auditFieldChanges({ members: [1, 2] }, { members: [2, 1] })).toEqual([{ field: "members", before: "[1,2]", after: "[2,1]" }]);
  });

  it("keeps model text as text: markup stays a string to be shown, not parsed", () => {
    expect(auditFieldChanges(null, { name: "<img src=x onerror=alert(1)>" })).toEqual([{ field: "name", before: null, after: "<img src=x onerror=alert(1)>" }]);
  });

  it("a value that turns from a scalar into an object shows whole on one line", () => {
    expect(auditFieldChanges({ labelRule: null }, { labelRule: { rule: "abs_q" } })).toEqual([{ field: "labelRule", before: "null", after: '{"rule":"abs_q"}' }]);
  });
});
