/**
 * Checks of deploy/compose.yaml and of the server launch lines in docs/DEPLOYMENT.md, on their text (no Docker, no
 * YAML library): what a deployment publishes, where its secrets come from, and which flags it passes to vLLM and
 * SGLang. Each returns the findings (empty when all is well), so a test can prove the check on a bad input too.
 */

/** The text of a YAML file without its comment lines and without trailing ` # …` comments outside quotes. */
export function withoutComments(text: string): string[] {
  return text.split("\n").map((line) => {
    if (/^\s*#/.test(line)) return "";
    let quote: string | null = null;
    for (let i = 0; i < line.length; i++) {
      const char = line[i]!;
      if (quote) {
        if (char === quote) quote = null;
      } else if (char === '"' || char === "'") quote = char;
      else if (char === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
    }
    return line.trimEnd();
  });
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const unquote = (value: string) => value.trim().replace(/^(["'])(.*)\1$/, "$2");

/** The services of a Compose file: name -> the lines of its block (comments dropped). */
export function composeServices(text: string): Map<string, string[]> {
  const lines = withoutComments(text);
  const services = new Map<string, string[]>();
  const start = lines.findIndex((line) => /^services:\s*$/.test(line));
  if (start < 0) return services;
  let current: string[] | null = null;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") continue;
    if (indentOf(line) === 0) break;
    const name = indentOf(line) === 2 ? /^ {2}([\w.-]+):/.exec(line)?.[1] : undefined;
    if (name) services.set(name, (current = []));
    else current?.push(line);
  }
  return services;
}

/** Splits a YAML flow sequence's inside (`a, "b, c", { x: 1 }`) at its top-level commas. */
function flowItems(inside: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let item = "";
  for (const char of inside) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") depth--;
    else if (char === "," && depth === 0) {
      items.push(item.trim());
      item = "";
      continue;
    }
    item += char;
  }
  if (item.trim()) items.push(item.trim());
  return items;
}

/** The items of a sequence key of a service (`key: [a, b]` or a block of `- a` lines), unquoted. */
export function sequenceOf(block: string[], key: string): string[] {
  const at = block.findIndex((line) => new RegExp(`^\\s+${key}:`).test(line));
  if (at < 0) return [];
  const own = indentOf(block[at]!);
  const rest = block[at]!.slice(block[at]!.indexOf(":") + 1).trim();
  if (rest.startsWith("[")) return flowItems(rest.slice(1, rest.lastIndexOf("]"))).map(unquote);
  if (rest) return [unquote(rest)];
  const items: string[] = [];
  for (const line of block.slice(at + 1)) {
    if (indentOf(line) <= own && !line.trimStart().startsWith("- ")) break;
    if (indentOf(line) < own) break;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item) items.push(unquote(item[1]!));
    else if (items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
  }
  return items;
}

/** The image of a service, if it names one. */
export const imageOf = (block: string[]) => block.map((line) => /^\s{4}image:\s*["']?([^"'\s]+)/.exec(line)?.[1]).find(Boolean);

/**
 * Published PostgreSQL ports that are reachable beyond the host's loopback: on a service running a postgres image,
 * or any port whose container side is 5432. `5432:5432`, `0.0.0.0:5432:5432` and a bare `5432` publish on every
 * interface; only `127.0.0.1:…` and `[::1]:…` (or no `ports:` at all) keep it on the host. `network_mode: host` on
 * PostgreSQL is reported too (it listens on the host's own interfaces).
 */
export function publicPostgresPorts(compose: string): string[] {
  const found: string[] = [];
  for (const [name, block] of composeServices(compose)) {
    const postgres = imageOf(block)?.startsWith("postgres") ?? false;
    if (postgres && block.some((line) => /^\s+network_mode:\s*["']?host/.test(line))) found.push(`${name}: network_mode: host`);
    for (const port of sequenceOf(block, "ports")) {
      let hostIp: string | undefined;
      let target: string;
      if (port.startsWith("{")) {
        const field = (key: string) => new RegExp(`\\b${key}:\\s*["']?([^,"'}\\s]+)`).exec(port)?.[1];
        hostIp = field("host_ip");
        target = field("target") ?? "";
      } else {
        const parts = /^(?:(\[[^\]]+\]|[^:]+):)?(?:([^:]*):)?(\d+(?:-\d+)?)(?:\/\w+)?$/.exec(port);
        if (!parts) {
          found.push(`${name}: ${port} (unreadable)`);
          continue;
        }
        // "A:B" is host port A to container port B; "IP:A:B" binds IP.
        hostIp = parts[2] === undefined ? undefined : parts[1];
        target = parts[3]!;
      }
      if (!postgres && target !== "5432") continue;
      const loopback = hostIp !== undefined && /^(127\.\d+\.\d+\.\d+|\[::1\]|::1|localhost)$/.test(hostIp);
      if (!loopback) found.push(`${name}: ${port}`);
    }
  }
  return found;
}

const SECRET_NAME = /(PASSWORD|PASSWD|SECRET|API_?KEY|TOKEN|PRIVATE_KEY|CREDENTIALS?)$/i;
const SECRET_FLAG = /(?:^|[\s"'[,])--?[\w-]*(api-key|apikey|password|passwd|secret|token)(?:[=\s"']|$)/i;
const KEY_LITERAL = /\b(sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{16,})/;
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:[^\s@/]+@/i;

/**
 * Passwords and keys written into the Compose file instead of reaching the containers through `env_file:` files or
 * `secrets:`: a secret-named variable (…PASSWORD, …SECRET, …API_KEY, …TOKEN; not …_FILE, which names a file) set to
 * a literal or `${…}` value anywhere (a service's `environment:`, an `x-` anchor merged into one, `- NAME=value`
 * lists), a `${…}` interpolation of such a variable anywhere, a URL carrying a password, a key-like literal (`sk-…`,
 * `hf_…`), and a password or key flag (`--api-key …`, `--password=…`) on any line, a command line above all, where
 * `ps` shows it to every user of the host and `docker inspect` to every user of Docker.
 */
export function inlineSecrets(compose: string): string[] {
  const found: string[] = [];
  withoutComments(compose).forEach((line, index) => {
    if (!line.trim()) return;
    const where = `line ${index + 1}: ${line.trim()}`;
    const assignment = /^\s*(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*(?::\s+|=)(.*)$/.exec(line);
    if (assignment && SECRET_NAME.test(assignment[1]!) && !/_FILE$/i.test(assignment[1]!) && unquote(assignment[2]!) !== "") {
      found.push(`${where} (a secret set inline)`);
      return;
    }
    const interpolated = [...line.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((match) => match[1]!).filter((name) => SECRET_NAME.test(name));
    if (interpolated.length > 0) found.push(`${where} (interpolates ${interpolated.join(", ")})`);
    else if (URL_PASSWORD.test(line)) found.push(`${where} (a URL with a password)`);
    else if (KEY_LITERAL.test(line)) found.push(`${where} (a key)`);
    else if (SECRET_FLAG.test(line)) found.push(`${where} (a secret on a command line)`);
  });
  return found;
}

/** The `env_file:` and `secrets:` files a Compose file reads, relative to it. */
export function secretFiles(compose: string): string[] {
  const lines = withoutComments(compose);
  const files = new Set<string>();
  for (const line of lines) {
    const envFile = /^\s+env_file:\s*\[([^\]]*)\]/.exec(line);
    if (envFile) for (const item of flowItems(envFile[1]!)) files.add(unquote(item));
    const secret = /^\s+file:\s*["']?([^"'\s]+)/.exec(line);
    if (secret) files.add(secret[1]!);
  }
  return [...files];
}

/** One flag as a command line gives it: its name and whether a value follows. */
export interface GivenFlag {
  flag: string;
  value: string | null;
}

/** The flags of a command line's words: `--name value`, `--name=value` or a bare `--name`; words before the first flag are skipped. */
export function flagsOf(words: string[]): GivenFlag[] {
  const flags: GivenFlag[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!/^--?[A-Za-z]/.test(word)) continue;
    const equals = word.indexOf("=");
    if (equals > 0) {
      flags.push({ flag: word.slice(0, equals), value: word.slice(equals + 1) });
      continue;
    }
    const next = words[i + 1];
    if (next !== undefined && !/^--?[A-Za-z]/.test(next)) {
      flags.push({ flag: word, value: next });
      i++;
    } else flags.push({ flag: word, value: null });
  }
  return flags;
}

/** A release's options (a fixture of packages/config/test/fixtures/server-args): flag -> `value`, `optional` or `switch`. */
export interface ServerOptions {
  tag: string;
  commit: string;
  kinds: Map<string, "value" | "optional" | "switch">;
}

export function parseServerOptions(text: string): ServerOptions {
  const header = (key: string) => new RegExp(`^# ${key}: (\\S+)$`, "m").exec(text)?.[1] ?? "";
  const kinds = new Map<string, "value" | "optional" | "switch">();
  for (const line of text.split("\n")) {
    const entry = /^(-\S+) (value|optional|switch)$/.exec(line);
    if (entry) kinds.set(entry[1]!, entry[2] as "value" | "optional" | "switch");
  }
  return { tag: header("tag"), commit: header("commit"), kinds };
}

/** What is wrong with a command line's flags for a release: unknown flags, a value given to a switch, none to a flag that needs one. */
export function flagProblems(words: string[], options: ServerOptions): string[] {
  const problems: string[] = [];
  for (const { flag, value } of flagsOf(words)) {
    const kind = options.kinds.get(flag);
    if (!kind) problems.push(`${flag}: not an option of ${options.tag}`);
    else if (kind === "switch" && value !== null) problems.push(`${flag} ${value}: ${flag} takes no value in ${options.tag}`);
    else if (kind === "value" && value === null) problems.push(`${flag}: takes a value in ${options.tag}, none given`);
  }
  return problems;
}

/** The words of each shell command in a Markdown file's code blocks that contains `marker`: `\` continuations joined, `#` comments dropped. */
export function documentedCommands(markdown: string, marker: string): string[][] {
  const commands: string[][] = [];
  for (const block of markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    const joined = block[1]!
      .split("\n")
      .map((line) => line.replace(/(^|\s)#.*$/, ""))
      .join("\n")
      .replace(/\\\s*\n/g, " ");
    for (const line of joined.split("\n")) if (line.includes(marker)) commands.push(line.trim().split(/\s+/));
  }
  return commands;
}
