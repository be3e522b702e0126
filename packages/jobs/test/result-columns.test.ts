import { describe, expect, it } from "vitest";
import { benchmarkResultColumns } from "../src/kinds/benchmark/result-columns";
import { judgeResultColumns } from "../src/kinds/judge/result-columns";

const subset = (n: number) => ({ n, n_error: Math.floor(n / 2), n_correct: n - Math.floor(n / 2), acc_err: 0.5, acc_cor: 0.5, f1: 0.5 });
const benchmark = (extra: Record<string, unknown> = {}) => ({ subsets: { gsm8k: subset(4), math: subset(2) }, average_f1: 0.625, f1_ci95: {}, unparseable: 0, missing: 0, ...extra });

describe("the figures the runs list ranks a finished run by", () => {
  it("a ProcessBench-scored benchmark: its average F1, none where it scored nothing or its summary does not read", () => {
    expect(benchmarkResultColumns(benchmark())).toEqual({ averageF1: 0.625, prmscore: null });
    expect(benchmarkResultColumns(benchmark({ subsets: { gsm8k: subset(0) } }))).toEqual({ averageF1: null, prmscore: null });
    expect(benchmarkResultColumns(null)).toEqual({ averageF1: null, prmscore: null });
    expect(benchmarkResultColumns({ average_f1: "high" })).toEqual({ averageF1: null, prmscore: null });
  });

  it("a PRMBench-scored benchmark: its PRMScore, and no first-error F1", () => {
    const prmbench = { prmscore: 0.58, f1: 0.7, negative_f1: 0.46, n: 9, by_class: {}, ci95: null, by_class_ci95: {}, invalid: 0, missing: 0 };
    expect(benchmarkResultColumns(benchmark({ prmbench }))).toEqual({ averageF1: null, prmscore: 0.58 });
    expect(benchmarkResultColumns(benchmark({ prmbench: { ...prmbench, n: 0 } }))).toEqual({ averageF1: null, prmscore: null });
  });

  it("a judge: its Negative samples among the readable ones, unparseable samples left out", () => {
    expect(judgeResultColumns({ samples: 10, verdicts: { Positive: 6, Negative: 2, unparseable: 2 }, unparseableRate: 0.2 })).toEqual({ negativeShare: 0.25 });
    expect(judgeResultColumns({ samples: 3, verdicts: { Negative: 3 }, unparseableRate: 0 })).toEqual({ negativeShare: 1 });
    expect(judgeResultColumns({ samples: 2, verdicts: { unparseable: 2 }, unparseableRate: 1 })).toEqual({ negativeShare: null });
    expect(judgeResultColumns(undefined)).toEqual({ negativeShare: null });
  });
});
