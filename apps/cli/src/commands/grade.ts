import path from "node:path";
import { EXTRACTION_MODES, type ExtractionMode, type GradeResult } from "@stepwiser/core";
import { DEFAULT_GRADING_TIME_LIMIT_MS, GradingPool } from "@stepwiser/jobs/grading";
import { z } from "zod";
import { readInputText } from "../input/files";
import { parseJsonLines } from "../input/jsonl";
import { numberFlag } from "../input/numbers";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const pairLine = z.object({
  gold: z.string({ error: "must be a string" }),
  pred: z.string({ error: "must be a string" }),
  // The problem's text, optional: it decides readings the answers alone cannot (a percent against a decimal).
  problem: z.string({ error: "must be a string" }).optional(),
});

function answerJson(result: GradeResult, details: boolean) {
  const base = {
    equivalent: result.equivalent,
    gold_extracted: result.gold.extracted,
    pred_extracted: result.pred.extracted,
    // The comparison that decided, and the reading of the answers when one applied: `numeric:ordered-tuple`.
    reason: result.reading ? `${result.reason}:${result.reading}` : result.reason,
    // Which extraction rule found the prediction's answer (null when none did).
    rule: result.pred.rule,
  };
  if (!details) return base;
  return {
    ...base,
    gold_rule: result.gold.rule,
    pred_rule: result.pred.rule,
    gold_normalised: result.gold.normalised,
    pred_normalised: result.pred.normalised,
    elapsed_ms: Math.round(result.elapsedMs * 10) / 10,
  };
}

/**
 * `stepwiser grade --gold G --pred P` or `stepwiser grade --jsonl FILE`, optionally
 * `--mode boxed|lenient` (default lenient). Pairs are graded on worker threads, each
 * under a hard time limit, and printed in input order.
 */
export async function gradeCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("grade", {
    args,
    options: {
      gold: { type: "string" },
      pred: { type: "string" },
      problem: { type: "string" },
      jsonl: { type: "string" },
      "time-limit-ms": { type: "string" },
      threads: { type: "string" },
      details: { type: "boolean", default: false },
      mode: { type: "string" },
    },
  });
  const single = values.gold !== undefined || values.pred !== undefined;
  if (values.problem !== undefined && !single) throw new UsageError("--problem goes with --gold and --pred; in --jsonl give each line a \"problem\" field");
  if (single && values.jsonl) throw new UsageError("give either --gold and --pred, or --jsonl, not both");
  if (!single && !values.jsonl) throw new UsageError("give --gold G --pred P, or --jsonl FILE");
  if (single && (values.gold === undefined || values.pred === undefined)) throw new UsageError("--gold and --pred go together");
  const mode = (values.mode ?? "lenient") as ExtractionMode;
  if (!EXTRACTION_MODES.includes(mode)) throw new UsageError(`--mode must be ${EXTRACTION_MODES.join(" or ")}, got "${values.mode}"`);
  const timeLimitMs = numberFlag("time-limit-ms", values["time-limit-ms"], DEFAULT_GRADING_TIME_LIMIT_MS);
  if (timeLimitMs <= 0) throw new UsageError(`--time-limit-ms must be positive, got ${timeLimitMs}`);

  // Validate the whole input before grading, so bad input never leaves half an output.
  const pairs: Array<{ gold: string; pred: string; problem?: string }> = single
    ? [{ gold: values.gold!, pred: values.pred!, ...(values.problem === undefined ? {} : { problem: values.problem }) }]
    : parseJsonLines(await readInputText(values.jsonl!), values.jsonl === "-" ? "stdin" : path.basename(values.jsonl!), pairLine).map((l) => l.value);
  if (pairs.length === 0) return;

  const requestedThreads = values.threads === undefined ? 2 : numberFlag("threads", values.threads);
  if (!Number.isInteger(requestedThreads) || requestedThreads < 1) throw new UsageError(`--threads must be a positive integer, got "${values.threads}"`);
  const threads = Math.min(requestedThreads, pairs.length);
  const pool = new GradingPool({ threads, timeLimitMs, gradeOptions: { mode } });
  try {
    const pending = pairs.map((pair) => pool.grade(pair.gold, pair.pred, pair.problem === undefined ? undefined : { problem: pair.problem }));
    for (const result of pending) process.stdout.write(`${JSON.stringify(answerJson(await result, values.details))}\n`);
  } finally {
    await pool.close();
  }
}
