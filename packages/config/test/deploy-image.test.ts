import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Docker is not available where the tests run: this reads deploy/Dockerfile, the
 * .dockerignore of the build context compose.yaml names, and deploy/compose.yaml,
 * and fails on what would make the image unsafe or unreproducible — a developer's
 * node_modules/, .data/ (embedded cluster, credentials, auth secret) or .git in the
 * build context, a single-stage build, a final stage running as root, and images
 * without a pinned version (no tag, or :latest).
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
    ];
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

  it("the final stage runs as a non-root user", () => {
    const users = stages.at(-1)!.body.filter((instruction) => instruction.keyword === "USER");
    expect(users.length, "USER in the final stage").toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(":")[0]!.trim();
    expect(["root", "0", ""]).not.toContain(user);
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

  it("compose.yaml publishes no port of PostgreSQL beyond the host's loopback and puts no model-server key on a command line", () => {
    const published = [...compose.matchAll(/^\s*ports:\s*\[([^\]]*)\]/gm)].flatMap((match) => match[1]!.split(",").map((p) => p.trim().replace(/^["']|["']$/g, "")));
    const postgres = published.filter((port) => /:5432$/.test(port));
    expect(postgres.length).toBeGreaterThan(0);
    for (const port of postgres) expect(port).toMatch(/^127\.0\.0\.1:\d+:5432$/);
    expect(compose).not.toMatch(/--api-key/);
    expect(compose).not.toMatch(/API_KEY:\s*\$\{/);
    // vLLM reads VLLM_API_KEY from its environment (an env file); SGLang reads `api-key` from its --config YAML (a secret).
    expect(compose).toMatch(/env_file: \[\.\/secrets\/vllm\.env\]/);
    expect(compose).toMatch(/--config \/run\/secrets\/sglang-api-key\.yaml/);
    expect(readFileSync(path.join(deployDir, "..", ".gitignore"), "utf8")).toMatch(/^deploy\/secrets\/$/m);
  });
});
