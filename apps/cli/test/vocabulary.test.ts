import { DUPLICATE_POLICIES as JOB_DUPLICATE_POLICIES, isTerminal, RUN_KIND_NAMES, SFT_FORMATS as JOB_SFT_FORMATS, SOLUTION_FORMATS as JOB_SOLUTION_FORMATS, TRAINING_SET_FORMATS as JOB_TRAINING_SET_FORMATS, UNIT_RUN_KINDS, BATCH_RUN_KINDS } from "@stepwiser/jobs";
import { RunStatus } from "@stepwiser/db";
import { describe, expect, it } from "vitest";
import { DUPLICATE_POLICIES, LAUNCHABLE_RUN_KINDS, OFFLINE_RUN_KINDS, RUN_KINDS, RUN_STATUSES, SFT_FORMATS, SOLUTION_FORMATS, TERMINAL_RUN_STATUSES, TRAINING_SET_FORMATS } from "../src/vocabulary";

describe("the command line's copy of the jobs layer's names", () => {
  it("is the jobs layer's and the database's, list by list", () => {
    expect([...LAUNCHABLE_RUN_KINDS].sort()).toEqual([...UNIT_RUN_KINDS.keys()].sort());
    expect([...OFFLINE_RUN_KINDS]).toEqual([...BATCH_RUN_KINDS]);
    expect([...RUN_KINDS].sort()).toEqual([...RUN_KIND_NAMES].sort());
    expect([...RUN_STATUSES].sort()).toEqual(Object.values(RunStatus).sort());
    expect([...TERMINAL_RUN_STATUSES].sort()).toEqual(RUN_STATUSES.filter((status) => isTerminal(status)).sort());
    expect([...TRAINING_SET_FORMATS]).toEqual([...JOB_TRAINING_SET_FORMATS]);
    expect([...SOLUTION_FORMATS]).toEqual([...JOB_SOLUTION_FORMATS]);
    expect([...SFT_FORMATS]).toEqual([...JOB_SFT_FORMATS]);
    expect([...DUPLICATE_POLICIES]).toEqual([...JOB_DUPLICATE_POLICIES]);
  });
});
