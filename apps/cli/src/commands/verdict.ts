import { parseVerdict } from "@stepwiser/core";
import { readInputText } from "../input/files";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

/** `stepwiser verdict --file F`: the verdict of one judge output ("-" reads stdin). */
export async function verdictCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("verdict", { args, options: { file: { type: "string" } } });
  if (!values.file) throw new UsageError("--file is required (a judge output; - for stdin)");
  const parsed = parseVerdict(await readInputText(values.file));
  process.stdout.write(`${JSON.stringify({ verdict: parsed.verdict, boxed: parsed.boxed, problem: parsed.problem ?? null })}\n`);
}
