import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inlineSecrets, publicPostgresPorts, secretFiles } from "./compose-checks";

/**
 * Docker is not available where the tests run: this reads deploy/Dockerfile, the
 * .dockerignore of the build context compose.yaml names, and deploy/compose.yaml,
 * and fails on what would make the image unsafe or unreproducible — a developer's
 * node_modules/, .data/ (embedded cluster, credentials, auth secret), .git or the
 * operator's deploy/secrets/ in the build context, a single-stage build, a final stage
 * running as root or without python3 and bubblewrap (the code sandbox's tools), a Node
 * other than .node-version's, images without a pinned version (no tag, or :latest),
 * PostgreSQL published beyond the host's loopback, and a password or key written into
 * compose.yaml (on a command line or in `environment:`) instead of an env file or secret.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const deployDir = path.join(repoRoot, "deploy");
const composeFile = path.join(deployDir, "compose.yaml");
const compose = readFileSync(composeFile, "utf8");

/** The app's build: `build: { context, dockerfile }` of the x-stepwiser anchor (one build for every process). */
function buildOf(text: string): { context: string; dockerfile: string } {
  const block = /^\s*build:\s*\n((?:\s+(?:context|dockerfile):.*\n)+)/m.exec(text);
  if (!block) throw new Error("compose.yaml: no build: { context, dockerfile } block");
  const value = (key: string) => new RegExp(`^\\s+${key}:\\s*["']?([^"'\\s#]+)`, "m").exec(block[1]!)?.[1];
  const context = path.resolve(deployDir, value("context") ?? ".");
  return { context, dockerfile: path.resolve(context, value("dockerfile") ?? "Dockerfile") };
}

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, comments dropped and `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\s*\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line)!;
      return { keyword: keyword.toUpperCase(), args };
    });
}

/** "" when the reference pins a version; otherwise why not. */
function unpinned(ref: string): string {
  if (ref.includes("$")) return "an unresolved variable";
  if (/@sha256:[0-9a-f]{64}$/.test(ref)) return "";
  const lastSegment = ref.split("/").at(-1)!;
  const tag = lastSegment.includes(":") ? lastSegment.split(":").at(-1)! : "";
  if (!tag) return "no tag";
  if (tag === "latest") return ":latest";
  // "16" or "20-slim" float to every new minor: a version pins at least major.minor.
  if (!/^v?\d+\.\d+/.test(tag)) return `tag "${tag}" names no exact version`;
  return "";
}

interface Stage {
  image: string;
  name?: string;
  body: Instruction[];
}

function stagesOf(list: Instruction[]): Stage[] {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of list) {
    if (instruction.keyword === "ARG" && stages.length === 0) {
      const [name, value] = instruction.args.split("=", 2);
      if (name && value !== undefined) args.set(name.trim(), value.trim().replace(/^["']|["']$/g, ""));
    } else if (instruction.keyword === "FROM") {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith("--"));
      const image = words[0]!.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => args.get(name) ?? whole);
      const as = words.findIndex((word) => word.toUpperCase() === "AS");
      stages.push({ image, name: as >= 0 ? words[as + 1] : undefined, body: [] });
    } else {
      stages.at(-1)?.body.push(instruction);
    }
  }
  return stages;
}

/** The packages an `apt-get install` in these RUN instructions installs. */
function aptPackages(body: Instruction[]): string[] {
  return body
    .filter((instruction) => instruction.keyword === "RUN")
    .flatMap((instruction) => [...instruction.args.matchAll(/apt-get\s+install\s+((?:[^&|;]+))/g)])
    .flatMap((match) => match[1]!.split(/\s+/).filter((word) => word && !word.startsWith("-")));
}

/** ENV and ARG names of a Dockerfile that hold a secret: baked into the image's config or build history. */
function secretBuildVariables(list: Instruction[]): string[] {
  return list
    .filter((instruction) => instruction.keyword === "ENV" || instruction.keyword === "ARG")
    .flatMap((instruction) => [...instruction.args.matchAll(/(?:^|\s)([A-Za-z_]\w*)(?==|\s|$)/g)].map((match) => match[1]!))
    .filter((name) => /(PASSWORD|PASSWD|SECRET|API_?KEY|TOKEN)$/i.test(name));
}

/** .dockerignore patterns (Go filepath.Match plus `**`), as regular expressions on context-relative paths. */
function ignoreRules(text: string): { exclude: boolean; pattern: RegExp; source: string }[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const exclude = !line.startsWith("!");
      const glob = path.posix.normalize(line.replace(/^!/, "").replace(/^\/+/, "")).replace(/\/+$/, "");
      let source = "";
      for (let i = 0; i < glob.length; i++) {
        const char = glob[i]!;
        if (char === "*" && glob[i + 1] === "*") {
          source += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
          i += glob[i + 2] === "/" ? 2 : 1;
        } else if (char === "*") source += "[^/]*";
        else if (char === "?") source += "[^/]";
        else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      // A matched folder takes its whole content with it.
      return { exclude, pattern: new RegExp(`^${source}(?:/.*)?$`), source: line };
    });
}

function isIgnored(rules: ReturnType<typeof ignoreRules>, file: string): boolean {
  let ignored = false;
  for (const rule of rules) if (rule.pattern.test(file)) ignored = rule.exclude;
  return ignored;
}

const { context, dockerfile } = buildOf(compose);

describe("deploy/: the image and the Compose file", () => {
  it("compose.yaml builds deploy/Dockerfile from the repository root", () => {
    expect(path.relative(repoRoot, context)).toBe("");
    expect(path.relative(repoRoot, dockerfile)).toBe(path.join("deploy", "Dockerfile"));
  });

  it("the build context's .dockerignore keeps node_modules, .data, .git and local output out", () => {
    // BuildKit reads <Dockerfile>.dockerignore beside the Dockerfile first, else the context root's .dockerignore.
    const candidates = [`${dockerfile}.dockerignore`, path.join(context, ".dockerignore")];
    const ignoreFile = candidates.find((file) => existsSync(file));
    expect(ignoreFile, `no ${candidates.map((file) => path.relative(repoRoot, file)).join(" or ")}`).toBeDefined();
    const rules = ignoreRules(readFileSync(ignoreFile!, "utf8"));
    const mustStayOut = [
      "node_modules",
      "node_modules/.pnpm/pg@8.16.3/index.js",
      "apps/web/node_modules",
      "packages/db/node_modules",
      ".data",
      ".data/pg/postgresql.conf",
      ".data/auth-secret",
      ".git",
      ".git/config",
      "apps/web/.next",
      ".turbo",
      ".env",
      "packages/db/src/generated",
      "e2e/test-results",
      // The operator's secrets: the build stage's `COPY . .` would put them in a layer of the image.
      "deploy/secrets",
      "deploy/secrets/studio.env",
      "deploy/secrets/postgres.env",
      ...secretFiles(compose).map((file) => path.relative(repoRoot, path.resolve(deployDir, file))),
    ];
    expect(secretFiles(compose).length, "compose.yaml reads env files or secrets").toBeGreaterThan(0);
    const leaking = mustStayOut.filter((file) => !isIgnored(rules, file));
    expect(leaking, `${path.relative(repoRoot, ignoreFile!)} lets these into the build context`).toEqual([]);
    const needed = ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "prisma/schema.prisma", "apps/web/src/app/page.tsx", "packages/db/patches/x.patch", "deploy/Dockerfile"];
    expect(needed.filter((file) => isIgnored(rules, file)), "the build needs these").toEqual([]);
  });

  const stages = stagesOf(instructions(readFileSync(dockerfile, "utf8")));

  it("the Dockerfile is multi-stage: a build stage, then a runtime stage that copies from it", () => {
    expect(stages.length, "FROM lines").toBeGreaterThanOrEqual(2);
    const final = stages.at(-1)!;
    const copiesFromBuild = final.body.some(
      (instruction) => instruction.keyword === "COPY" && /--from=/.test(instruction.args),
    );
    expect(copiesFromBuild, "the final stage takes the build's output with COPY --from=…").toBe(true);
    const installsInFinal = final.body.some(
      (instruction) => instruction.keyword === "RUN" && /\b(pnpm|npm)\s+(install|i|ci)\b|\bturbo\s+run\s+build\b|\bnext\s+build\b/.test(instruction.args),
    );
    expect(installsInFinal, "installing and building belong to the build stage").toBe(false);
  });

  it("the build context reaches the image only through the build stage's `COPY . .`, and no ENV or ARG holds a secret", () => {
    const fromContext = stages.flatMap((stage) => stage.body.filter((instruction) => ["COPY", "ADD"].includes(instruction.keyword) && !/--from=/.test(instruction.args)).map((instruction) => [stage.name, instruction.args]));
    // Everything of the context goes in filtered by .dockerignore (checked above); a named source would bypass nothing, but say so.
    expect(fromContext).toEqual([["build", ". ."]]);
    expect(secretBuildVariables(stages.flatMap((stage) => stage.body))).toEqual([]);
    expect(secretBuildVariables(instructions("ENV NODE_ENV=production \\\n    STEPWISER_AUTH_SECRET=x\nARG HF_TOKEN\n"))).toEqual(["STEPWISER_AUTH_SECRET", "HF_TOKEN"]);
  });

  it("the final stage installs python3 and bubblewrap, the tools `stepwiser sandbox check` looks for", () => {
    // The sandbox runs blocks with the first python3 on PATH under bwrap; Debian's package `bubblewrap` provides /usr/bin/bwrap.
    const sandbox = readFileSync(path.join(repoRoot, "packages/jobs/src/sandbox/python-sandbox.ts"), "utf8");
    expect(sandbox).toContain('findAllOnPath("bwrap"');
    expect(sandbox).toContain('findAllOnPath("python3"');
    const installed = aptPackages(stages.at(-1)!.body);
    expect(installed).toContain("python3");
    expect(installed).toContain("bubblewrap");
    expect(aptPackages(instructions("RUN apt-get update && apt-get install -y --no-install-recommends python3 && rm -rf /var/lib/apt/lists/*"))).toEqual(["python3"]);
  });

  it("the final stage runs as a non-root user", () => {
    const users = stages.at(-1)!.body.filter((instruction) => instruction.keyword === "USER");
    expect(users.length, "USER in the final stage").toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(":")[0]!.trim();
    expect(["root", "0", ""]).not.toContain(user);
    // No RUN after the last USER switches back (`su`, `gosu`, `sudo`), and the CMD is the studio's.
    const afterUser = stages.at(-1)!.body.slice(stages.at(-1)!.body.lastIndexOf(users.at(-1)!) + 1);
    expect(afterUser.filter((instruction) => instruction.keyword === "RUN" && /\b(su|gosu|sudo|su-exec)\b/.test(instruction.args))).toEqual([]);
  });

  it("every base image is pinned to a version (Node 24 on bookworm-slim)", () => {
    const names = new Set(stages.map((stage) => stage.name).filter(Boolean));
    const external = stages.map((stage) => stage.image).filter((image) => !names.has(image) && image !== "scratch");
    for (const instruction of stages.flatMap((stage) => stage.body)) {
      const from = /--from=(\S+)/.exec(instruction.args)?.[1];
      if (instruction.keyword === "COPY" && from && !names.has(from) && !/^\d+$/.test(from)) external.push(from);
    }
    expect(external.length).toBeGreaterThan(0);
    expect(external.map((image) => [image, unpinned(image)]).filter(([, why]) => why)).toEqual([]);
    // Node 24 at the exact version every other runtime of the studio uses (/.node-version: the launcher's, CI's).
    const nodeVersion = readFileSync(path.join(repoRoot, ".node-version"), "utf8").trim();
    expect(nodeVersion).toMatch(/^24\.\d+\.\d+$/);
    const nodeImages = external.filter((ref) => ref.startsWith("node:"));
    expect(nodeImages.length).toBeGreaterThan(0);
    for (const image of nodeImages) {
      expect(image).toMatch(new RegExp(`^node:${nodeVersion.replaceAll(".", "\\.")}-bookworm-slim(@sha256:[0-9a-f]{64})?$`));
    }
  });

  it("every image in compose.yaml is pinned to a version", () => {
    const images = [...compose.matchAll(/^\s*image:\s*["']?([^"'\s#]+)/gm)].map((match) => match[1]!);
    expect(images.length).toBeGreaterThan(0);
    expect(images.map((image) => [image, unpinned(image)]).filter(([, why]) => why)).toEqual([]);
  });

  it("compose.yaml publishes PostgreSQL on the host's loopback only", () => {
    expect(publicPostgresPorts(compose)).toEqual([]);
    expect(compose).toMatch(/^\s+ports: \["127\.0\.0\.1:5432:5432"\]/m);
  });

  it("the PostgreSQL port check reports every publication beyond the loopback", () => {
    const service = (lines: string) => `services:\n  db:\n    image: postgres:16.10-bookworm\n${lines}\n  web:\n    image: app:1.0\n    ports: ["3000:3000"]\n`;
    expect(publicPostgresPorts(service('    ports: ["5432:5432"]'))).toEqual(["db: 5432:5432"]);
    expect(publicPostgresPorts(service('    ports: ["0.0.0.0:5432:5432"]'))).toEqual(["db: 0.0.0.0:5432:5432"]);
    expect(publicPostgresPorts(service("    ports:\n      - 5432\n      - \"127.0.0.1:5433:5432\""))).toEqual(["db: 5432"]);
    expect(publicPostgresPorts(service("    ports:\n      - { target: 5432, published: 5432 }"))).toEqual(["db: { target: 5432, published: 5432 }"]);
    expect(publicPostgresPorts(service("    network_mode: host"))).toEqual(["db: network_mode: host"]);
    expect(publicPostgresPorts(service('    ports: ["127.0.0.1:5432:5432", "[::1]:5432:5432"]'))).toEqual([]);
    expect(publicPostgresPorts(service('    ports: ["127.0.0.1:15432:5432"]'))).toEqual([]);
    expect(publicPostgresPorts(service(""))).toEqual([]);
  });

  it("compose.yaml writes no password or key: they come from env files and secrets under deploy/secrets/, documented", () => {
    expect(inlineSecrets(compose)).toEqual([]);
    const files = secretFiles(compose);
    expect(files.sort()).toEqual(["./secrets/postgres.env", "./secrets/sglang-api-key.yaml", "./secrets/studio.env", "./secrets/vllm.env"]);
    expect(readFileSync(path.join(repoRoot, ".gitignore"), "utf8")).toMatch(/^deploy\/secrets\/$/m);
    // vLLM reads VLLM_API_KEY from its environment (an env file); SGLang reads `api-key` from its --config YAML (a secret).
    expect(compose).toMatch(/env_file: \[\.\/secrets\/vllm\.env\]/);
    expect(compose).toMatch(/--config \/run\/secrets\/sglang-api-key\.yaml/);
    // The doc tells the operator which file holds what, and that each is 0600.
    const doc = readFileSync(path.join(repoRoot, "docs/DEPLOYMENT.md"), "utf8");
    const secrets = doc.slice(doc.indexOf("## Secrets"), doc.indexOf("\n## ", doc.indexOf("## Secrets") + 1));
    expect(secrets.length, "DEPLOYMENT.md has a Secrets section").toBeGreaterThan(100);
    expect(secrets).toMatch(/0600/);
    for (const [file, holds] of [
      ["postgres.env", ["POSTGRES_PASSWORD"]],
      ["studio.env", ["DATABASE_URL", "STEPWISER_AUTH_SECRET"]],
      ["vllm.env", ["VLLM_API_KEY"]],
      ["sglang-api-key.yaml", ["api-key"]],
    ] as const) {
      expect(secrets, file).toContain(`deploy/secrets/${file}`);
      for (const name of holds) expect(secrets, `${file} holds ${name}`).toContain(name);
    }
  });

  it("the secret check reports keys on command lines and passwords inline or interpolated in environment:", () => {
    expect(inlineSecrets('services:\n  vllm:\n    command: ["vllm serve m", "--api-key sk-abcdefghijklmnop"]\n')).toHaveLength(1);
    expect(inlineSecrets("services:\n  vllm:\n    command:\n      - vllm serve m\n      - --api-key ${VLLM_API_KEY}\n")).toEqual(["line 5: - --api-key ${VLLM_API_KEY} (interpolates VLLM_API_KEY)"]);
    expect(inlineSecrets("    command: [\"postgres\", \"--password=hunter2\"]\n")).toEqual(['line 1: command: ["postgres", "--password=hunter2"] (a secret on a command line)']);
    expect(inlineSecrets("    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}\n")).toEqual([
      "line 2: POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD} (a secret set inline)",
    ]);
    expect(inlineSecrets("    environment:\n      - STEPWISER_AUTH_SECRET=0123456789abcdef0123456789abcdef\n")).toHaveLength(1);
    expect(inlineSecrets("x-database: &database\n  DATABASE_URL: postgresql://stepwiser:${POSTGRES_PASSWORD:?set}@postgres:5432/stepwiser\n")).toEqual([
      "line 2: DATABASE_URL: postgresql://stepwiser:${POSTGRES_PASSWORD:?set}@postgres:5432/stepwiser (interpolates POSTGRES_PASSWORD)",
    ]);
    expect(inlineSecrets("      DATABASE_URL: postgresql://stepwiser:hunter2@postgres:5432/stepwiser\n")).toHaveLength(1);
    expect(inlineSecrets("      HF_TOKEN: hf_abcdefghijklmnopqrst\n")).toHaveLength(1);
    // Files and comments are not secrets: env_file, secrets, *_FILE variables, a key named only in a comment.
    expect(
      inlineSecrets(
        "    env_file: [./secrets/vllm.env]\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/pg\n      # VLLM_API_KEY=<key> comes from vllm.env\n    secrets: [{ source: sglang_api_key, target: k.yaml }]\nsecrets:\n  sglang_api_key:\n    file: ./secrets/k.yaml\n",
      ),
    ).toEqual([]);
  });
});
