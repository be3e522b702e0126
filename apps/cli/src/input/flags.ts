import { parseArgs, type ParseArgsConfig } from "node:util";
import { nearestName } from "@stepwiser/core";
import { UsageError } from "../usage-error";

type ParsedFlags<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** A word the caller adds after "did you mean" when no flag is near (e.g. that the name is a config field). */
export type UnknownFlagHint = (name: string) => string | undefined;

/** The flag `parseArgs` refused, as given ("--rolouts", "-x"), from its message. */
function refusedFlag(error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  return /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
}

/**
 * The message for an unknown flag of `command` ("run annotate"): the nearest
 * declared long flag (`--help` included), else the caller's hint, then where
 * the flags are listed.
 */
export function unknownFlagMessage(command: string, flag: string, declared: Iterable<string>, hint?: UnknownFlagHint): string {
  const long = flag.startsWith("--") ? flag.slice(2) : undefined;
  const suggestion = long !== undefined ? nearestName(long, [...declared, "help"]) : undefined;
  const extra = suggestion ? `did you mean --${suggestion}?` : long !== undefined ? hint?.(long) : undefined;
  return `unknown flag ${flag} for "${command}"${extra ? `; ${extra}` : ""} (stepwiser ${command} --help lists its flags)`;
}

/**
 * `parseArgs` (strict) for the command `command`, whose unknown flag is a usage
 * error that suggests the nearest declared one: `unknown flag --rolouts for
 * "run annotate"; did you mean --rollouts?`. Other parse errors pass on as they are.
 */
export function parseFlags<T extends ParseArgsConfig>(command: string, config: T, hint?: UnknownFlagHint): ParsedFlags<T> {
  try {
    return parseArgs(config);
  } catch (error) {
    const flag = refusedFlag(error);
    if (flag === undefined) throw error;
    throw new UsageError(unknownFlagMessage(command, flag, Object.keys(config.options ?? {}), hint));
  }
}

/**
 * For `.catch` around a whole command: an unknown flag that reached here unconverted
 * (a parser not made with parseFlags) gets the same message, with the flags the
 * command's help lists as the declared ones; any other error passes on.
 */
export function unknownFlagsAs(command: string, listed: () => Iterable<string>): (error: unknown) => never {
  return (error) => {
    const flag = refusedFlag(error);
    if (flag === undefined) throw error;
    throw new UsageError(unknownFlagMessage(command, flag, listed()));
  };
}
