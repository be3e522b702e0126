import { describe, expect, it } from "vitest";
import { editDistance, nearestName, nearestNames } from "../../src/text/nearest-name";

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent transpositions", () => {
    expect(editDistance("rollouts", "rollouts")).toBe(0);
    expect(editDistance("rolouts", "rollouts")).toBe(1);
    expect(editDistance("rollouts", "rolouts")).toBe(1);
    expect(editDistance("rollouts", "rollonts")).toBe(1);
    expect(editDistance("detahc", "detach")).toBe(1);
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    // Restricted: a transposed pair is not edited again (true Damerau-Levenshtein would say 2).
    expect(editDistance("ca", "abc")).toBe(3);
  });

  it("is symmetric", () => {
    for (const [a, b] of [["held-out", "hold-out"], ["dataset", "datset"], ["x", "policyEndpoint"]] as const) expect(editDistance(a, b)).toBe(editDistance(b, a));
  });
});

describe("nearestNames", () => {
  const flags = ["config", "detach", "offline", "dry-run", "preset", "name", "tag", "notes"];

  it("suggests the name within two edits", () => {
    expect(nearestName("detahc", flags)).toBe("detach");
    expect(nearestName("dryrun", flags)).toBe("dry-run");
    expect(nearestName("ofline", flags)).toBe("offline");
    expect(nearestName("rolouts", ["rollouts", "datasetId"])).toBe("rollouts");
  });

  it("suggests a name the given one starts, or that starts the given one", () => {
    expect(nearestName("conf", flags)).toBe("config");
    expect(nearestName("presets2", flags)).toBe("preset");
  });

  it("suggests nothing for a name far from every known one, or for a known one", () => {
    expect(nearestName("bogus", flags)).toBeUndefined();
    expect(nearestName("config", flags)).toBeUndefined();
    expect(nearestName("", flags)).toBeUndefined();
    // Short names need close typos: two edits to a four-letter name is a different word.
    expect(nearestName("tags", ["name"])).toBeUndefined();
  });

  it("ignores case, ranks by distance then by the known order, and honours the limit", () => {
    expect(nearestName("DETACH", flags)).toBe("detach");
    // "same" is two edits from "nme", more than a four-letter name allows.
    expect(nearestNames("nme", ["notes", "same", "name"], { limit: 3 })).toEqual(["name"]);
    expect(nearestNames("tagz", ["tags", "tag"], { limit: 2 })).toEqual(["tags", "tag"]);
    expect(nearestNames("ab", ["abc", "abd"], { limit: 1 })).toEqual(["abc"]);
  });
});
