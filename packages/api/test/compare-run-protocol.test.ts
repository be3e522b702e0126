import { describe, expect, it } from "vitest";
import { comparableRun } from "../src/services/compare/runs";

const run = (config: Record<string, unknown>, summary?: unknown) => ({
  id: "r1",
  kind: "benchmark" as const,
  name: null,
  status: "completed" as const,
  datasetId: "d1",
  createdAt: new Date(0),
  config: { datasetId: "d1", judgeEndpoint: "j", segmentationMethod: "self-segmented", ...config },
  summary,
});

describe("a compared run names the protocol version and prompt it was made with", () => {
  it("keeps the version its summary recorded, else reads the current one", () => {
    expect(comparableRun(run({ protocol: "genprm" }, { protocol: "genprm@v1" })).protocolRef).toBe("genprm@v1");
    expect(comparableRun(run({ protocol: "genprm" })).protocolRef).toBe("genprm@v2");
    // A summary naming another protocol is not this run's record.
    expect(comparableRun(run({ protocol: "thinkprm" }, { protocol: "genprm@v1" })).protocolRef).toBe("thinkprm@v2");
  });

  it("names the judge prompt or the critic template; a stored StepWiser run without one used v1", () => {
    expect(comparableRun(run({ protocol: "stepwiser-chunk", judgePromptTemplateId: "stepwiser-judge@v2" })).promptTemplateId).toBe("stepwiser-judge@v2");
    expect(comparableRun(run({ protocol: "stepwiser-chunk" })).promptTemplateId).toBe("stepwiser-judge@v1");
    expect(comparableRun(run({ protocol: "processbench-critic", criticPromptTemplateId: "processbench-critic@v2" })).promptTemplateId).toBe("processbench-critic@v2");
    expect(comparableRun(run({ protocol: "thinkprm" })).promptTemplateId).toBeNull();
  });
});
