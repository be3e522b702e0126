/** Longest unbroken run of characters an error message repeats from the input. */
const MAX_ECHOED_RUN = 200;
const ECHOED_PREFIX = 60;

/**
 * The message with every overlong run of non-space characters cut to its start
 * and its length. Domain messages quote what the caller sent ("dataset … does
 * not exist"); a 10 MB id must not come back as a 10 MB error. A plain scan, not
 * a regular expression: a backtracking match over megabytes overflows the stack.
 */
export function shortenEchoedInput(message: string): string {
  if (message.length <= MAX_ECHOED_RUN) return message;
  let out = "";
  let runStart = 0;
  for (let i = 0; i <= message.length; i++) {
    const atSpace = i === message.length || /\s/.test(message.charAt(i));
    if (!atSpace) continue;
    const run = message.slice(runStart, i);
    out += run.length > MAX_ECHOED_RUN ? `${run.slice(0, ECHOED_PREFIX)}… (${run.length} characters)` : run;
    if (i < message.length) out += message.charAt(i);
    runStart = i + 1;
  }
  return out;
}
