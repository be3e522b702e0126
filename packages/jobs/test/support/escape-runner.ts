/**
 * Runs the escape corpus in this process and prints `{ "uid", "results": { case name: what it saw } }` as one JSON
 * line: sandbox-escape.test.ts starts it under another uid to run the corpus as a non-root worker would.
 */
import { sandboxAvailability } from "../../src/sandbox/python-sandbox";
import { ESCAPE_CASES } from "./escape-cases";

const availability = await sandboxAvailability();
const results: Record<string, unknown> = {};
if (availability.available) {
  for (const escape of ESCAPE_CASES) {
    try {
      results[escape.name] = await escape.run();
    } catch (error) {
      results[escape.name] = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
  }
}
process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), availability, results })}\n`);
