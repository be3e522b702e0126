import { createReadStream } from "node:fs";
import { readLines } from "@stepwiser/core";
import { runBatch } from "@stepwiser/inference/sim";
import { closeLineOutput, lineOutput, readableFile, writeLine } from "../input/line-files";
import { numberFlag } from "../input/numbers";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

/**
 * `stepwiser sim run-batch -i IN.jsonl -o OUT.jsonl --url URL [--concurrency N]`:
 * `vllm run-batch -i IN.jsonl -o OUT.jsonl --model M` against a running simulated
 * cluster (`--url` names the server that plays the model).
 */
export async function simRunBatchCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("sim run-batch", {
    args,
    options: {
      "input-file": { type: "string", short: "i" },
      "output-file": { type: "string", short: "o" },
      url: { type: "string" },
      concurrency: { type: "string" },
      "api-key": { type: "string" },
    },
  });
  const input = values["input-file"];
  const output = values["output-file"];
  if (!input || !output || !values.url) throw new UsageError("usage: sim run-batch -i IN.jsonl -o OUT.jsonl --url http://host:port/v1 [--concurrency N]");
  const concurrency = numberFlag("concurrency", values.concurrency, 64);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError("--concurrency must be a positive integer");
  const file = await readableFile(input);
  const out = lineOutput(output);
  let requests = 0;
  let failed = 0;
  try {
    for await (const line of runBatch({ input: readLines(createReadStream(file), input), file: input, baseUrl: values.url, concurrency, apiKey: values["api-key"] })) {
      requests += 1;
      if (line.error !== null || line.response?.status_code !== 200) failed += 1;
      await writeLine(out, JSON.stringify(line));
    }
  } finally {
    await closeLineOutput(out);
  }
  process.stderr.write(`run-batch: ${requests} requests, ${failed} failed, written to ${output}\n`);
  process.stdout.write(`${JSON.stringify({ requests, failed, output })}\n`);
}
