import { describe, expect, it } from "vitest";
import { measuredLine, steppedLine } from "../src/components/ui/chart-curves";

const SPLINES = ["monotone", "monotoneX", "monotoneY", "basis", "basisOpen", "basisClosed", "natural", "cardinal", "bump", "bumpX", "bumpY"];

describe("measured chart curves", () => {
  it("draws per-point measurements as straight segments between visible dots", () => {
    const line = measuredLine();
    expect(line.type).toBe("linear");
    expect(line.dot).toBeTruthy();
  });

  it("draws counters and carried-over bars as steps", () => {
    expect(steppedLine().type).toBe("stepAfter");
  });

  it("never smooths between measured points", () => {
    for (const props of [measuredLine(), steppedLine()]) expect(SPLINES).not.toContain(props.type);
  });
});
