import { UsageError } from "../usage-error";

/*
 * Remote mode: with a studio's address and an API token (STEPWISER_URL and
 * STEPWISER_TOKEN, or --url and --token, which win), the commands that have a
 * REST operation go through the studio's API (/api/v1) instead of a database.
 */

export interface RemoteSettings {
  /** The studio's address, without a trailing slash (e.g. http://localhost:3000). */
  baseUrl: string;
  /** An API token (sw_…), sent as `Authorization: Bearer`; never printed. */
  token: string;
}

export interface RemoteFlags {
  url?: string;
  token?: string;
}

/** Whether `arg` is `--url`/`--token` or their `=` form; returns the flag's name. */
function remoteFlagOf(arg: string): { name: "url" | "token"; inline?: string } | undefined {
  for (const name of ["url", "token"] as const) {
    if (arg === `--${name}`) return { name };
    if (arg.startsWith(`--${name}=`)) return { name, inline: arg.slice(name.length + 3) };
  }
  return undefined;
}

/**
 * Takes `--url URL` and `--token TOKEN` (or `--url=URL`) out of `args`: the
 * remaining arguments and the flags' values. With `leadingOnly`, only flags
 * before the first other argument are taken (the words before a command name).
 */
export function takeRemoteFlags(args: readonly string[], { leadingOnly = false } = {}): { args: string[]; flags: RemoteFlags } {
  const rest: string[] = [];
  const flags: RemoteFlags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    const flag = remoteFlagOf(arg);
    if (!flag) {
      if (leadingOnly) {
        rest.push(...args.slice(i));
        break;
      }
      rest.push(arg);
      continue;
    }
    let value = flag.inline;
    if (value === undefined) {
      value = args[i + 1];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`--${flag.name} needs a value: ${flag.name === "url" ? "the studio's address, e.g. --url http://localhost:3000" : "an API token (Settings → API tokens)"}`);
      i += 1;
    }
    flags[flag.name] = value;
  }
  return { args: rest, flags };
}

/** The studio's address as given, checked: http(s), no query; a trailing slash or /api/v1 is dropped. */
export function normalizeBaseUrl(given: string, source: string): string {
  const trimmed = given.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new UsageError(`${source} "${trimmed}" is not an address; give the studio's, e.g. http://localhost:3000`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${source} "${trimmed}" is not an http(s) address; give the studio's, e.g. http://localhost:3000`);
  if (url.username || url.password) throw new UsageError(`${source} carries a user name or password; give the address alone and the API token in STEPWISER_TOKEN (or --token)`);
  if (url.search || url.hash) throw new UsageError(`${source} "${trimmed}" has a query or fragment; give the studio's address alone, e.g. http://localhost:3000`);
  const pathname = url.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return `${url.origin}${pathname}`;
}

/**
 * Remote mode's settings from the flags and the environment (flags win), or
 * null when neither an address nor a token is given (local mode). One without
 * the other is a usage error naming what is missing.
 */
export function resolveRemote(flags: RemoteFlags, env: NodeJS.ProcessEnv): RemoteSettings | null {
  const urlSource = flags.url !== undefined ? "--url" : "STEPWISER_URL";
  const tokenSource = flags.token !== undefined ? "--token" : "STEPWISER_TOKEN";
  const url = (flags.url ?? env.STEPWISER_URL ?? "").trim();
  const token = (flags.token ?? env.STEPWISER_TOKEN ?? "").trim();
  if (!url && !token) return null;
  if (!url) throw new UsageError(`${tokenSource} is set but no studio address is: remote mode needs both STEPWISER_URL (or --url) and STEPWISER_TOKEN (or --token)`);
  if (!token) {
    throw new UsageError(
      `${urlSource} is set but no API token is: remote mode needs STEPWISER_TOKEN (or --token), an API token from the studio's Settings → API tokens; unset STEPWISER_URL to use the database`,
    );
  }
  if (/\s/.test(token)) throw new UsageError(`${tokenSource} holds white space; give the API token alone (sw_…)`);
  return { baseUrl: normalizeBaseUrl(url, urlSource), token };
}
